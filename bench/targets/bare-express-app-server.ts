/**
 * Bare Express 5 answering the same 1 KB JSON body, on the server our app runs on (`appServer`:
 * requests and responses built with the app's prototypes, record 0065). Shown beside the floor,
 * not a floor: how much of our ratio to bare Express is that one difference.
 */
import express from "express";
import { appServer } from "../../server/src/http/kit/app-server.js";
import { kilobyteJson } from "./payload.js";

const app = express();
app.get(/.*/, (_req, res) => {
  res.json(kilobyteJson);
});
appServer(app).listen(Number(process.env.PORT), "127.0.0.1");
