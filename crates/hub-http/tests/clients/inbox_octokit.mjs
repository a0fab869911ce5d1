// GitHub's own signer and verifier (@octokit/webhooks-methods), for
// inbox_senders.py: `sign SECRET` or `verify SECRET SIGNATURE`, the payload
// on standard input; prints the signature, or "true"/"false".
import { sign, verify } from "@octokit/webhooks-methods";

const [command, secret, signature] = process.argv.slice(2);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const payload = Buffer.concat(chunks).toString("utf8");
if (command === "sign") {
  process.stdout.write(await sign(secret, payload));
} else {
  process.stdout.write(String(await verify(secret, payload, signature)));
}
