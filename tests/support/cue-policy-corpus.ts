/**
 * Policies as the tests and docs write them, each with a descriptor that complies: the
 * differential test mutates those descriptors and compares the native evaluator with CUE.
 */

export interface CorpusPolicy {
  readonly name: string;
  readonly script: string;
  readonly compliant: unknown;
  readonly metric?: boolean;
  /**
   * Written in today's CUE (required fields `!`): CUE v0.4 cannot read it, so it is compared with
   * the same script with `!` removed under requireConcrete (the documented v0.4 difference).
   */
  readonly requiredFields?: boolean;
  /** CUE v0.4 gets this one wrong (docs/cue-policies.md, "Differences from CUE v0.4"): the test checks both answers apart. */
  readonly v04?: string;
}

const PRODUCT = `package governance

import "strings"

name:    string & strings.MinRunes(2)
version: =~"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$"
owner: email: =~"@"
`;

export const CORPUS: readonly CorpusPolicy[] = [
  { name: 'product (docs, fixtures)', script: PRODUCT, compliant: { name: 'cashflow', version: '1.0.0', owner: { email: 'a@b.c' }, extra: [1, 2] } },
  { name: 'bounded size', script: 'name: string\nsize: int & <10\n', compliant: { name: 'a', size: 3 } },
  { name: 'optional field', script: 'name: string\nowner: email: string\nsize?: <10\n', compliant: { name: 'a', owner: { email: 'e' }, size: 2 } },
  {
    name: 'a rule only when an optional field is there',
    script: 'name: string\nowner?: {email: string}\nif owner != _|_ {\n\towner: email: =~"@"\n}\n',
    compliant: { name: 'a', owner: { email: 'a@b.c' } },
  },
  {
    name: 'a descriptor field declared as _, read into a hidden field by selector and by string index',
    script: 'metadata: _\n_team: metadata.team & =~"^[a-z]+$"\n_id: metadata["_id"]\n_id: =~"^id-"\n',
    compliant: { metadata: { team: 'data', _id: 'id-1' } },
  },
  {
    name: 'a hidden field ranging over a descriptor field declared as _',
    script: 'labels: _\n_checked: [for v in labels {v & string & =~"^[a-z]+$"}]\n',
    compliant: { labels: { team: 'data', tier: 'gold' } },
  },
  {
    name: 'a let read from a field, with a descriptor field that may be absent',
    script: 'limits: {...}\nlet max = limits.size & int & <10\ncapacity: max\n',
    compliant: { limits: { size: 3 }, capacity: 3 },
  },
  {
    name: 'presence read into a hidden field',
    script: 'name?: string\n_named: name != _|_\nif _named {\n\tname: =~"^[a-z]+$"\n}\n',
    compliant: { name: 'abc' },
  },
  { name: 'owner pattern', script: 'owner: string & =~"^[a-z]+$"\n', compliant: { owner: 'alice' } },
  { name: 'enumeration', script: 'owner: string & =~"^[a-z]+$"\ndomain: "finance" | "sales"\n', compliant: { owner: 'bob', domain: 'sales' } },
  { name: 'enumeration with default', script: 'env: *"dev" | "qa" | "prod"\n', compliant: { env: 'qa' } },
  { name: 'non-empty string', script: 'name: string & !=""\n', compliant: { name: 'x' } },
  { name: 'number range', script: 'size: int & >0 & <=100\nratio?: number & >=0 & <=1\n', compliant: { size: 50, ratio: 0.5 } },
  { name: 'non-empty list', script: 'tags: [string, ...string]\n', compliant: { tags: ['a', 'b'] } },
  {
    name: 'every element',
    script: 'components: [...{kind: "outputport" | "workload", name: string, ...}]\n',
    compliant: {
      components: [
        { kind: 'outputport', name: 'a' },
        { kind: 'workload', name: 'b', extra: true },
      ],
    },
  },
  {
    name: 'rule for some elements',
    script: 'kind: string\nif kind == "outputport" {\n\tschema: [_, ..._]\n}\n',
    compliant: { kind: 'outputport', schema: [{ name: 'id' }] },
  },
  { name: 'closed struct', script: 'close({name: string, version?: string})\n', compliant: { name: 'a', version: '1' } },
  {
    name: 'embedded definition',
    script: '#Product: {\n\tname: string\n\towner: {email: =~"@"}\n\ttags?: [...string]\n}\n#Product\n',
    compliant: { name: 'p', owner: { email: 'x@y' }, tags: ['t'] },
  },
  {
    name: 'definition with open part',
    script: '#Port: {name: string, ...}\n#Product: {name: string, ports: [...#Port]}\n#Product\n',
    compliant: { name: 'p', ports: [{ name: 'a', other: 1 }] },
  },
  {
    name: 'pattern constraints',
    script: 'labels: [string]: string & =~"^[a-z0-9-]+$"\nannotations?: [=~"^x-"]: string\n',
    compliant: { labels: { team: 'core', tier: 'one' }, annotations: { 'x-a': 'b' } },
  },
  {
    name: 'comprehension over labels',
    script: 'labels: {...}\nfor k, v in labels {\n\t"check_\\(k)": v & string\n}\n',
    compliant: { labels: { a: 'x' }, check_a: 'x' },
  },
  {
    name: 'previous vs current',
    script: 'previous: null | {version: string, ...}\ncurrent: {version: string, ...}\nif previous != null {\n\tcurrent: version: !=previous.version\n}\n',
    compliant: { previous: { version: '1' }, current: { version: '2' } },
  },
  {
    name: 'let and interpolation',
    script: 'let prefix = "urn:dmb:dp:"\ndomain: string\nid: =~"^\\(prefix)\\(domain):"\n',
    compliant: { domain: 'sales', id: 'urn:dmb:dp:sales:orders' },
  },
  {
    name: 'disjunction of structs',
    script: 'storage: {kind: "s3", bucket: string} | {kind: "postgres", schema: string}\n',
    compliant: { storage: { kind: 's3', bucket: 'b' } },
  },
  {
    name: 'arithmetic',
    script: 'min: int\nmax: int & >=min\nspan: max - min\nspan: <=10\n',
    compliant: { min: 1, max: 5, span: 4 },
  },
  {
    name: 'builtin validators',
    script:
      'import (\n\t"strings"\n\t"list"\n)\n\nname: strings.HasPrefix("dp-") & strings.MinRunes(4)\ntags: [...string] & list.UniqueItems()\ncode: =~"^[A-Z]{3}$"\n',
    compliant: { name: 'dp-sales', tags: ['a', 'b'], code: 'ABC' },
  },
  {
    name: 'nested optional and nulls',
    script: 'owner: {\n\tname: string\n\temail?: =~"@" | null\n}\nreviewers?: [...{name: string}]\n',
    compliant: { owner: { name: 'a', email: null }, reviewers: [{ name: 'b' }] },
  },
  { name: 'metric: count', script: 'components: [...]\nvalue: len(components)\n', compliant: { components: [{}, {}] }, metric: true },
  {
    name: 'metric: output ports',
    script: 'components: [...]\nvalue: len([for c in components if c.kind == "outputport" {c}])\n',
    compliant: { components: [{ kind: 'outputport' }, { kind: 'workload' }] },
    metric: true,
    v04: 'an `if` clause inside a list comprehension',
  },
  {
    name: 'required fields',
    script: 'name!: string\nowner!: {email!: =~"@"}\ndescription?: string\n',
    compliant: { name: 'x', owner: { email: 'a@b' } },
    requiredFields: true,
  },
  {
    name: 'data product (required fields, definitions)',
    script:
      '#Owner: {name!: string, email!: =~"^[^@]+@[^@]+$"}\ndataProductOwner!: #Owner\ndomain!: "finance" | "sales" | "marketing"\nversion!: =~"^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"\nenvironment: *"development" | "production"\n',
    compliant: { dataProductOwner: { name: 'a', email: 'a@b.c' }, domain: 'sales', version: '1.2.3', environment: 'production' },
    requiredFields: true,
  },
  {
    name: 'builtin called on descriptor data',
    script: 'import "strings"\n\nname: string\nupper: strings.ToUpper(name)\nupper: =~"^DP-"\n',
    compliant: { name: 'dp-sales', upper: 'DP-SALES' },
    v04: 'a builtin called with a descriptor field, under requireConcrete',
  },
  {
    name: 'non-empty list with list.MinItems',
    script: 'import "list"\n\ntags: [...string] & list.MinItems(1)\n',
    compliant: { tags: ['a'] },
    v04: 'list.MinItems(n) on an open list',
  },
  {
    name: 'JSON and YAML texts',
    script:
      'import (\n\t"encoding/json"\n\t"encoding/yaml"\n)\n\nconfig: string & json.Valid()\nsettings?: string & yaml.Validate({replicas?: int & <10})\n_defaults: {replicas: 2, tags: ["a", "b"]}\ndefaults: json.Marshal(_defaults)\n',
    compliant: { config: '{"a": [1, 2.5]}', settings: 'replicas: 3', defaults: '{"replicas":2,"tags":["a","b"]}' },
  },
  {
    name: 'a definition declaring a field by a computed label beside a pattern constraint (closed together)',
    script: '_default: "dev"\n#Envs: {[string]: {replicas: int, image?: string}}\n#Envs: {"\\(_default)": replicas: 1}\nenvs: #Envs\n',
    compliant: { envs: { dev: { replicas: 1, image: 'a' }, prod: { replicas: 2 } } },
  },
  {
    name: 'a field whose label is an optional field of the descriptor',
    script: 'namespace?: string\nquotas: {(namespace): {cpu: int & <=8}}\n',
    compliant: { namespace: 'ns1', quotas: { ns1: { cpu: 4 } } },
  },
  {
    name: 'RE2 syntax JavaScript does not read: inline flags, a POSIX class, \\z, \\pL',
    script: 'name: =~"^(?i)dp-[[:alnum:]]+\\\\z"\nowner: =~"^\\\\pL+$"\nversion: =~"^v(?-i:[0-9])"\n',
    compliant: { name: 'DP-x1', owner: 'Alice', version: 'v1' },
  },
];
