import type { Value } from '../evaluation/values';
import { toYaml } from '../export/encodings';
import { fn, pkg, s } from './builtin';
import { marshal, marshalStream, unmarshalYamlOne, validatesYaml } from './marshal';

export const yaml = pkg('encoding/yaml', [
  fn('yaml.Marshal', ['any'], ([value]) => marshal(value, toYaml)),
  fn('yaml.MarshalStream', ['list'], ([items]) => marshalStream(items, toYaml, '---\n')),
  fn('yaml.Unmarshal', ['bytes'], ([text], from) => unmarshalYamlOne(s(text), from)),
  fn('yaml.Validate', ['bytes', 'concrete'], ([text, schema], from) => validatesYaml(s(text), schema as Value, from), { validator: true }),
]);
