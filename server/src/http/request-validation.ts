import express, { type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { validatorDocument, validatorFormats } from "./validator-document.js";
import { leanValidatorStack } from "./validator-speed.js";

// How both APIs (public and operator) read and check a request: one body parser and one
// validator configuration, so the two cannot drift apart.

/** JSON bodies up to 64 KiB, parsed for POST, PUT and PATCH only: a body sent with a GET is ignored, not parsed (nor refused). */
export function jsonBodies(): RequestHandler {
  const json = express.json({ limit: "64kb" });
  return (req, res, next) =>
    req.method === "POST" || req.method === "PUT" || req.method === "PATCH" ? json(req, res, next) : next();
}

/**
 * express-openapi-validator over the document at `documentPath`, for the paths under `prefix`
 * spelled exactly (strict routing: `/x/` is no route, so not the validator's either).
 */
export function requestValidator(documentPath: string, prefix: string, validateResponses: boolean) {
  const stack = OpenApiValidator.middleware({
    apiSpec: validatorDocument(documentPath) as never,
    validateRequests: { allErrors: true, removeAdditional: false },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    // The document is generated and linted (redocly) before it ships; checking it against the
    // OpenAPI meta-schema again at every start cost most of a second. Requests are still validated.
    validateApiSpec: false,
    validateFormats: true,
    ajvFormats: { mode: "full" },
    formats: validatorFormats,
    ignorePaths: (path: string) => !path.startsWith(prefix) || path.endsWith("/"),
    // No operation takes multipart/form-data: the upload middleware (multer) would pass every
    // request on untouched.
    fileUploader: false,
  });
  return leanValidatorStack(stack as unknown as RequestHandler[]);
}
