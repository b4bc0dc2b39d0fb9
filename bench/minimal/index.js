// The reference minimal dynamic provider (bench/README.md): the classes bench/stack uses, with pulumi-platform's
// shape (`uid` is the id). Each provider object is a whole module, so Pulumi stores a require() of it, as it does
// for pulumi-platform.
"use strict";
const pulumi = require("@pulumi/pulumi");

const resource = (provider) =>
  class extends pulumi.dynamic.Resource {
    constructor(name, args, opts) {
      super(provider, name, args, opts);
      this.uid = this.id;
    }
  };

exports.iam = {
  Group: resource(require("./group")),
  Identity: resource(require("./identity")),
  RoleBinding: resource(require("./role-binding")),
};
