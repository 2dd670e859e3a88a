import { createServer, IncomingMessage, type Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

// The HTTP server of the app: its requests and responses are born with the app's prototypes.
// docs/decisions/0065-requests-born-with-the-apps-prototypes.md.
//
// Express 5 gives each request and response the app's `request` and `response` as their prototype
// (`Object.setPrototypeOf` in `app.handle`). In V8 an object whose prototype is changed gets a
// hidden class of its own: every request and response had one, so every read of their properties
// in code that sees many kinds of objects (Node's streams and HTTP code, Express's router) missed
// V8's property caches and was looked up in the runtime, dozens of times a request. Node builds
// them from the classes the server is given (`IncomingMessage`, `ServerResponse`, its public
// options); built as instances of the app's prototypes, the `setPrototypeOf` finds the prototype
// already in place and changes nothing.

/**
 * The app's request prototype as a constructor: Node's own `IncomingMessage` run on the new
 * object. A function, not a class: a class's `prototype` cannot be the app's object, and building
 * with `Reflect.construct` and another new target gave each object its own hidden class again.
 */
function requestClass(prototype: object): typeof IncomingMessage {
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = prototype;
  return AppRequest as unknown as typeof IncomingMessage;
}

/** The app's response prototype as a constructor, as `requestClass`. */
function responseClass(prototype: object): typeof ServerResponse {
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void).call(
      this,
      req,
      options,
    );
  }
  AppResponse.prototype = prototype;
  return AppResponse as unknown as typeof ServerResponse;
}

/**
 * The `IncomingMessage` and `ServerResponse` options of `http.createServer` (and of
 * `https.createServer`, which takes them too) that make requests and responses as `app`'s.
 */
export function appMessageClasses(app: Express): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  return { IncomingMessage: requestClass(app.request), ServerResponse: responseClass(app.response) };
}

/** An HTTP server for `app` (not yet listening), whose requests and responses are made as the app's. */
export function appServer(app: Express): Server {
  return createServer(appMessageClasses(app), app);
}
