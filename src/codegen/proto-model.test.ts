import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { srcDir } from './generate.ts';
import { generateProtoModelText, protoModelPath, protoModelTag } from './proto-input.ts';
import { buildProtoModel, parseGoStructs, parseProto } from './proto-model.ts';
import { kubernetesProto } from '../runtime/protobuf/generated/kubernetes-proto.ts';

test('the protobuf model takes numbers and types from generated.proto and JSON names and flags from the Go struct tags', () => {
  const proto = `
    syntax = "proto2";
    package k8s.io.api.demo.v1;
    import "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto";
    // Widget is a demo.
    message Widget {
      optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
      optional WidgetSpec spec = 2;
    }
    message WidgetSpec {
      optional int32 replicas = 1;
      repeated string names = 2;
      map<string, string> labels = 3;
      optional Handler handler = 4;
      optional string hidden = 5;
    }
    message Handler { optional string path = 1; }
    message Words { repeated string items = 1; }
  `;
  const go = `
type Widget struct {
	metav1.TypeMeta \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"\`
	Spec WidgetSpec \`json:"spec" protobuf:"bytes,2,opt,name=spec"\`
}
type WidgetSpec struct {
	// comment
	Replicas *int32 \`json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"\`
	Names []string \`json:"names" protobuf:"bytes,2,rep,name=names"\`
	Labels map[string]string \`json:"labels,omitempty" protobuf:"bytes,3,rep,name=labels"\`
	Handler \`json:",inline" protobuf:"bytes,4,opt,name=handler"\`
	Hidden string \`json:"-" protobuf:"bytes,5,opt,name=hidden"\`
}
type Handler struct {
	Path string \`json:"path,omitempty" protobuf:"bytes,1,opt,name=path"\`
}
type Words []string
`;
  const { pkg, messages } = parseProto(proto, 'demo.proto');
  assert.equal(pkg, 'k8s.io.api.demo.v1');
  assert.deepEqual(messages.get('k8s.io.api.demo.v1.WidgetSpec')?.map((f) => f.name), ['replicas', 'names', 'labels', 'handler', 'hidden']);
  assert.deepEqual(parseGoStructs([{ path: 'types.go', text: go }]).slices, new Set(['Words']));
  const meta = `package k8s.io.apimachinery.pkg.apis.meta.v1;\nmessage ObjectMeta { optional string name = 1; }`;
  const model = buildProtoModel(
    [
      { repository: 'kubernetes/api', dir: 'demo/v1', group: 'demo.k8s.io', proto, goFiles: [{ path: 'demo/v1/types.go', text: go }] },
      { repository: 'kubernetes/apimachinery', dir: 'pkg/apis/meta/v1', group: 'meta.k8s.io', proto: meta, goFiles: [] },
    ],
    { repositories: [], tag: 'v0.0.0', kubernetesVersion: '1.0' },
  );
  assert.deepEqual(model.groupVersions, { 'demo.k8s.io/v1': 'k8s.io.api.demo.v1', 'meta.k8s.io/v1': 'k8s.io.apimachinery.pkg.apis.meta.v1' });
  assert.deepEqual(model.sliceWrappers, ['k8s.io.api.demo.v1.Words']);
  assert.deepEqual(model.messages['k8s.io.api.demo.v1.WidgetSpec'], [
    [1, 'replicas', 'int32', 'op'],
    [2, 'names', 'string', 'r'],
    [3, 'labels', 'string', 'mo'],
    [4, '', 'k8s.io.api.demo.v1.Handler', 'i'],
  ]);
  assert.deepEqual(model.messages['k8s.io.api.demo.v1.Widget'], [
    [1, 'metadata', 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'o'],
    [2, 'spec', 'k8s.io.api.demo.v1.WidgetSpec', ''],
  ]);
});

test('the committed protobuf model names its source: Kubernetes 1.34 generated.proto files at one tag', () => {
  assert.equal(kubernetesProto.source.tag, protoModelTag);
  assert.equal(kubernetesProto.source.kubernetesVersion, '1.34');
  assert.deepEqual(kubernetesProto.source.repositories, ['kubernetes/api', 'kubernetes/apimachinery', 'kubernetes/apiextensions-apiserver']);
  assert.equal(kubernetesProto.groupVersions['v1'], 'k8s.io.api.core.v1');
  assert.ok(Object.keys(kubernetesProto.messages).length > 1000);
});

/**
 * Regeneration from the upstream sources: KUBELOOM_PROTO_MIRROR (default /work/.mirror) holds bare git
 * clones `kubernetes+api/repo`, `kubernetes+apimachinery/repo`, `kubernetes+apiextensions-apiserver/repo`.
 */
const mirror = process.env['KUBELOOM_PROTO_MIRROR'] ?? '/work/.mirror';
const haveMirror = existsSync(join(mirror, 'kubernetes+api', 'repo'));
test('regenerating the protobuf model from the upstream sources reproduces the committed file byte for byte', { skip: haveMirror ? false : `no upstream clones under ${mirror}` }, () => {
  assert.equal(generateProtoModelText(mirror), readFileSync(join(srcDir, protoModelPath), 'utf8'), 'run `npm run generate -- --proto-mirror DIR` and commit the result');
});
