import { type ReactNode, createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { useModePath } from "../lib/useMode";
import { api } from "../api/client";
import { fieldErrors, isApiError } from "../api/errors";
import { useRememberSession, useSession } from "../api/session";
import { TextField } from "./Field";
import { FormError } from "./FormError";
import { ui } from "./ui";

// Step-up (issue 25): a dangerous operation answers 403 STEP_UP_REQUIRED until the person
// confirms with the authenticator's code (or a recovery code) within 10 minutes. `useStepUp()`
// runs an operation, and on that refusal asks the code in a dialog and runs it once more.

type Ask = () => Promise<boolean>;
const StepUpContext = createContext<Ask | null>(null);

export function StepUpProvider(props: { children: ReactNode }) {
  const [pending, setPending] = useState<((confirmed: boolean) => void) | null>(null);
  const ask = useCallback<Ask>(() => new Promise<boolean>((resolve) => setPending(() => resolve)), []);
  const done = (confirmed: boolean) => {
    pending?.(confirmed);
    setPending(null);
  };
  return (
    <StepUpContext.Provider value={ask}>
      {props.children}
      {pending ? <StepUpDialog onDone={done} /> : null}
    </StepUpContext.Provider>
  );
}

/** `guard(() => mutation.mutateAsync(…))`: the operation, with the code asked when the server wants it. */
export function useStepUp() {
  const ask = useContext(StepUpContext);
  return useCallback(
    async <T,>(run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        if (!ask || !isApiError(error, "STEP_UP_REQUIRED")) throw error;
        if (!(await ask())) throw error;
        return run();
      }
    },
    [ask],
  );
}

function StepUpDialog(props: { onDone: (confirmed: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const to = useModePath();
  const session = useSession().data;
  const remember = useRememberSession();
  const stepUp = api.useMutation("post", "/dashboard/v1/session/step-up");
  const [code, setCode] = useState("");
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const { byField, rest } = fieldErrors(stepUp.error, ["code"]);
  const enabled = session?.user.twoFactorEnabled ?? false;
  return (
    <dialog
      ref={dialog}
      aria-labelledby="step-up-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onDone(false);
      }}
    >
      <h2 id="step-up-title">Confirme que é você</h2>
      {enabled ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            stepUp.mutate(
              { body: { code: code.trim() } },
              {
                onSuccess: (started) => {
                  remember(started);
                  props.onDone(true);
                },
              },
            );
          }}
        >
          <p>Esta operação pede o código do seu aplicativo autenticador (vale por 10 minutos).</p>
          <TextField
            label="Código de 6 dígitos ou de recuperação"
            name="code"
            autoComplete="one-time-code"
            inputMode="text"
            autoFocus
            required
            value={code}
            onChange={(event) => setCode(event.target.value)}
            error={byField.code}
          />
          <FormError error={stepUp.error} rest={rest} />
          <div className={ui.formActions}>
            <button type="submit" disabled={stepUp.isPending}>
              {stepUp.isPending ? "Confirmando…" : "Confirmar"}
            </button>
            <button type="button" className="secondary" onClick={() => props.onDone(false)}>
              Cancelar
            </button>
          </div>
        </form>
      ) : (
        <>
          <p>
            Esta operação exige a verificação em duas etapas. Ative-a primeiro em{" "}
            <Link to={to("configuracoes/seguranca")} onClick={() => props.onDone(false)}>
              Configurações → Verificação em duas etapas
            </Link>
            .
          </p>
          <div className={ui.formActions}>
            <button type="button" className="secondary" autoFocus onClick={() => props.onDone(false)}>
              Fechar
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
