/** The floor: bare `node:http` answering a 1 KB JSON body. */
import { createServer } from "node:http";
import { kilobyteJson } from "./payload.js";

const body = JSON.stringify(kilobyteJson);
createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}).listen(Number(process.env.PORT), "127.0.0.1");
