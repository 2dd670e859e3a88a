import { Link, useNavigate } from "react-router";
import { api } from "../../api/client";
import { useRememberSession } from "../../api/session";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { NewPasswordFields } from "../../components/NewPasswordFields";
import { modePath } from "../../lib/mode";
import { useApiForm } from "../../lib/useApiForm";
import { AuthLayout } from "./AuthLayout";

export function SignUp() {
  const navigate = useNavigate();
  const remember = useRememberSession();
  const signUp = api.useMutation("post", "/dashboard/v1/sign-up");
  const {
    values: form,
    set,
    errors,
    rest,
  } = useApiForm({ name: "", email: "", password: "", businessName: "" }, signUp);
  return (
    <AuthLayout
      title="Criar sua conta"
      footer={
        <span>
          Já tem conta? <Link to="/entrar">Entrar</Link>
        </span>
      }
    >
      <p>O modo de teste funciona na hora: chaves, cobranças simuladas e o sandbox, sem dinheiro real.</p>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          signUp.mutate(
            {
              body: {
                ...form,
                name: form.name.trim(),
                email: form.email.trim(),
                businessName: form.businessName.trim(),
              },
            },
            {
              onSuccess: (started) => {
                remember(started);
                navigate(modePath("test"), { replace: true, state: { welcome: true } });
              },
            },
          );
        }}
      >
        <TextField
          label="Seu nome"
          name="name"
          autoComplete="name"
          required
          value={form.name}
          onChange={set("name")}
          error={errors.name}
        />
        <TextField
          label="E-mail"
          name="email"
          type="email"
          autoComplete="email"
          required
          value={form.email}
          onChange={set("email")}
          error={errors.email}
        />
        <NewPasswordFields
          label="Senha"
          name="password"
          hint="; uma frase longa é mais fácil de lembrar e mais segura."
          value={form.password}
          onChange={set("password")}
          error={errors.password}
        />
        <TextField
          label="Nome do negócio"
          name="businessName"
          autoComplete="organization"
          required
          hint="Aparece para quem paga, no Pix."
          value={form.businessName}
          onChange={set("businessName")}
          error={errors.businessName}
        />
        <FormError error={signUp.error} rest={rest} />
        <button type="submit" disabled={signUp.isPending}>
          {signUp.isPending ? "Criando…" : "Criar conta"}
        </button>
      </form>
    </AuthLayout>
  );
}
