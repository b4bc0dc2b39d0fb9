// The reference minimal provider's whole client (bench/README.md): fetch with the stack's apiUrl and static token.
// No validation, no retries, no error translation, no connection tuning: the floor, not a product.
"use strict";

let settings = {};

exports.configure = async (req) => {
  settings = {
    apiUrl: req.config.get("platform:apiUrl") ?? process.env.PLATFORM_API_URL,
    token: req.config.get("platform:token") ?? process.env.PLATFORM_TOKEN,
  };
};

exports.request = async (method, path, body) => {
  const response = await fetch(`${settings.apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${settings.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return text === "" ? {} : JSON.parse(text);
};

/**
 * A dynamic provider for one collection: create = one POST under the parent, read = one GET, delete = one
 * DELETE. State keeps the inputs only (the smallest state a provider can have); no check and no diff, so the engine
 * compares inputs itself.
 */
exports.collection = (path, parentOf, bodyOf) => ({
  configure: exports.configure,
  async create(inputs) {
    const object = await exports.request("POST", `${path}/${parentOf(inputs)}`, bodyOf(inputs));
    return { id: object.uid, outs: inputs };
  },
  async read(id, props) {
    await exports.request("GET", `${path}/${id}`);
    return { id, props };
  },
  async delete(id) {
    await exports.request("DELETE", `${path}/${id}`);
  },
});
