import { useEffect, useState } from "react";
import { ui } from "./ui";

// A QR code drawn as an SVG path (no image, no data: URL: the CSP allows neither inline images
// nor scripts). The encoder (`qrcode`) loads only on the screens that draw one.

/** `className` sizes it (default: 12rem square). */
export function QrCode(props: { text: string; label: string; className?: string }) {
  const [drawn, setDrawn] = useState<{ size: number; path: string } | null>(null);
  useEffect(() => {
    let live = true;
    void import("qrcode").then(({ default: QRCode }) => {
      const { modules } = QRCode.create(props.text, { errorCorrectionLevel: "M" });
      let path = "";
      for (let row = 0; row < modules.size; row += 1) {
        for (let col = 0; col < modules.size; col += 1) {
          if (modules.get(row, col)) path += `M${col + 4} ${row + 4}h1v1h-1z`;
        }
      }
      if (live) setDrawn({ size: modules.size + 8, path });
    });
    return () => {
      live = false;
    };
  }, [props.text]);
  if (!drawn) return <div className={props.className ?? ui.qr} role="img" aria-label={`${props.label} (carregando)`} />;
  return (
    <svg
      className={props.className ?? ui.qr}
      viewBox={`0 0 ${drawn.size} ${drawn.size}`}
      role="img"
      aria-label={props.label}
      shapeRendering="crispEdges"
    >
      <rect width={drawn.size} height={drawn.size} fill="#fff" />
      <path d={drawn.path} fill="#000" />
    </svg>
  );
}
