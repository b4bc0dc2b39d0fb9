// bench/stack's classes on the native plugin (`pulumi-resource-platform`, installed into the stack's PULUMI_HOME by
// bench/stack.ts): plain CustomResources under the schema's type tokens, with pulumi-platform's shape (`uid` is the
// id), so the same program measures the native path. No dependency on the generated SDK: what is measured is the
// plugin, not a wrapper.
"use strict";
const pulumi = require("@pulumi/pulumi");

const resource = (type) =>
  class extends pulumi.CustomResource {
    constructor(name, args, opts) {
      super(type, name, args, opts);
      this.uid = this.id;
    }
  };

exports.iam = {
  Group: resource("platform:iam:Group"),
  Identity: resource("platform:iam:Identity"),
  RoleBinding: resource("platform:iam:RoleBinding"),
};
