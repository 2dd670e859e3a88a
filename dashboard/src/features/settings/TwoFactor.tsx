import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../api/client";
import { fieldErrors } from "../../api/errors";
import { sessionKey, useCurrentSession } from "../../api/session";
import { CopyButton } from "../../components/CopyButton";
import { TextField } from "../../components/Field";
import { FormError } from "../../components/FormError";
import { QrCode } from "../../components/QrCode";
import { useStepUp } from "../../components/StepUp";
import { Alert, Badge, Card, ui } from "../../components/ui";
import styles from "./settings.module.css";

/** Two-factor authentication: set-up by QR code, recovery codes, turning it off. */
export function TwoFactor() {
  const { user } = useCurrentSession();
  const [codes, setCodes] = useState<string[] | null>(null);
  if (codes) return <RecoveryCodesShown codes={codes} onDone={() => setCodes(null)} />;
  return user.twoFactorEnabled ? <Enabled onCodes={setCodes} /> : <SetUp onCodes={setCodes} />;
}

function SetUp(props: { onCodes: (codes: string[]) => void }) {
  const client = useQueryClient();
  const start = api.useMutation("post", "/dashboard/v1/me/two-factor");
  const confirm = api.useMutation("post", "/dashboard/v1/me/two-factor/confirm");
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const enrollment = start.data;
  const { byField, rest } = fieldErrors(confirm.error, ["code"]);
  const startErrors = fieldErrors(start.error, ["currentPassword"]);
  if (!enrollment) {
    return (
      <Card title="Verificação em duas etapas" id="dois-fatores">
        <p>
          <Badge tone="warn">desativada</Badge>
        </p>
        <p>
          Além da senha, o painel pedirá um código de 6 dígitos do seu aplicativo autenticador (Google Authenticator,
          Microsoft Authenticator, 1Password, Authy…) ao entrar e antes de operações sensíveis, como saques.
        </p>
        <form
          className={ui.form}
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            start.mutate({ body: { currentPassword: password } }, { onSuccess: () => setPassword("") });
          }}
        >
          <TextField
            label="Sua senha"
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            hint="Para ativar, confirme que é você."
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={startErrors.byField.currentPassword}
          />
          <FormError error={start.error} rest={startErrors.rest} />
          <div className={ui.formActions}>
            <button type="submit" disabled={start.isPending}>
              {start.isPending ? "Preparando…" : "Ativar a verificação em duas etapas"}
            </button>
          </div>
        </form>
      </Card>
    );
  }
  return (
    <Card title="Escaneie o código no seu autenticador" id="dois-fatores">
      <div className={styles.enroll}>
        <QrCode text={enrollment.otpauthUri} label="Código QR para o aplicativo autenticador" />
        <div>
          <p>1. No aplicativo autenticador, adicione uma conta lendo o código QR.</p>
          <p>
            Sem câmera? Digite esta chave:{" "}
            {/* In groups of four, as authenticator apps show and take it: a line breaks between groups. */}
            <span className={styles.secret}>{enrollment.secret.replace(/(.{4})(?=.)/g, "$1 ")}</span>{" "}
            <CopyButton text={enrollment.secret} label="Copiar a chave" />
          </p>
          <p>2. Digite o código de 6 dígitos que o aplicativo mostra.</p>
          <form
            className={ui.form}
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              confirm.mutate(
                { body: { code: code.trim() } },
                {
                  onSuccess: (answer) => {
                    void client.invalidateQueries({ queryKey: sessionKey });
                    props.onCodes(answer.recoveryCodes);
                  },
                },
              );
            }}
          >
            <TextField
              label="Código do aplicativo"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
              error={byField.code}
            />
            <FormError error={confirm.error} rest={rest} />
            <div className={ui.formActions}>
              <button type="submit" disabled={confirm.isPending}>
                {confirm.isPending ? "Confirmando…" : "Confirmar e ativar"}
              </button>
            </div>
          </form>
        </div>
      </div>
    </Card>
  );
}

function Enabled(props: { onCodes: (codes: string[]) => void }) {
  const client = useQueryClient();
  const guard = useStepUp();
  const regenerate = api.useMutation("post", "/dashboard/v1/me/two-factor/recovery-codes");
  const disable = api.useMutation("delete", "/dashboard/v1/me/two-factor");
  const [confirming, setConfirming] = useState(false);
  return (
    <Card title="Verificação em duas etapas" id="dois-fatores">
      <p>
        <Badge tone="ok">ativada</Badge>
      </p>
      <p>O painel pede o código do aplicativo autenticador ao entrar e antes de operações sensíveis.</p>
      <FormError error={regenerate.error ?? disable.error} />
      <div className={ui.formActions}>
        <button
          type="button"
          className="secondary"
          disabled={regenerate.isPending}
          onClick={() =>
            guard(() => regenerate.mutateAsync({})).then(
              (answer) => props.onCodes(answer.recoveryCodes),
              () => undefined,
            )
          }
        >
          Gerar novos códigos de recuperação
        </button>
        {confirming ? (
          <>
            <span>Desativar mesmo?</span>
            <button
              type="button"
              className="danger"
              disabled={disable.isPending}
              onClick={() =>
                guard(() => disable.mutateAsync({})).then(
                  () => void client.invalidateQueries({ queryKey: sessionKey }),
                  () => undefined,
                )
              }
            >
              Sim, desativar
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Não
            </button>
          </>
        ) : (
          <button type="button" className="secondary" onClick={() => setConfirming(true)}>
            Desativar
          </button>
        )}
      </div>
    </Card>
  );
}

function RecoveryCodesShown(props: { codes: string[]; onDone: () => void }) {
  return (
    <Card title="Seus códigos de recuperação" id="codigos">
      <Alert tone="warn">
        Guarde estes códigos agora, num lugar seguro: eles não serão mostrados de novo. Cada um entra uma vez no lugar
        do aplicativo autenticador, se você perder o celular.
      </Alert>
      <ul className={styles.codes} aria-label="Códigos de recuperação">
        {props.codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className={ui.formActions}>
        <CopyButton text={props.codes.join("\n")} label="Copiar os códigos" />
        <button type="button" onClick={props.onDone}>
          Já guardei
        </button>
      </div>
    </Card>
  );
}
