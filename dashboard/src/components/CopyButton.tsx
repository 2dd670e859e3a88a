import { useState } from "react";

/** Copies `text` to the clipboard and says so (for screen readers too). */
export function CopyButton(props: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  return (
    <button
      type="button"
      className={props.className ?? "secondary"}
      onClick={() => {
        navigator.clipboard.writeText(props.text).then(
          () => setCopied("yes"),
          () => setCopied("no"),
        );
      }}
    >
      <span aria-live="polite">
        {copied === "yes" ? "Copiado!" : copied === "no" ? "Não foi possível copiar" : (props.label ?? "Copiar")}
      </span>
    </button>
  );
}
