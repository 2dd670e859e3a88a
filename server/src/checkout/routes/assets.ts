import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RequestHandler } from "express";

/** One file of assets/, with the version its address carries. */
interface Asset {
  body: Buffer;
  type: string;
  version: string;
}

function loadAsset(file: string, type: string): Asset {
  const body = readFileSync(new URL(`../assets/${file}`, import.meta.url));
  return { body, type, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

/** Our only stylesheet, script and icon, read once; addressed by content version. */
export class CheckoutAssets {
  private readonly files = new Map<string, Asset>([
    ["checkout.css", loadAsset("checkout.css", "text/css; charset=utf-8")],
    ["checkout.js", loadAsset("checkout.js", "text/javascript; charset=utf-8")],
    ["icon.svg", loadAsset("icon.svg", "image/svg+xml")],
  ]);

  /** `/checkout/assets/checkout.css?v=…`: cached for a year, since a new content has a new address. */
  path(file: string): string {
    return `/checkout/assets/${file}?v=${this.files.get(file)?.version ?? ""}`;
  }

  /** `GET /checkout/assets/:file`; an unknown file goes to `notFound`. */
  route(notFound: RequestHandler): RequestHandler {
    return (req, res, next) => {
      const file = (req.params as Record<string, string | undefined>).file ?? "";
      const asset = this.files.get(file);
      if (!asset) return notFound(req, res, next);
      const versioned = req.query.v === asset.version;
      res.setHeader("Cache-Control", versioned ? "public, max-age=31536000, immutable" : "no-cache");
      res.type(asset.type).send(asset.body);
    };
  }
}
