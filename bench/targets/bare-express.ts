/** The floor our framework sets: bare Express 5 answering the same 1 KB JSON body. */
import express from "express";
import { kilobyteJson } from "./payload.js";

const app = express();
app.get(/.*/, (_req, res) => {
  res.json(kilobyteJson);
});
app.listen(Number(process.env.PORT), "127.0.0.1");
