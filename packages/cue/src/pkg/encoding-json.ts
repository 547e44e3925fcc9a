import type { Value } from '../evaluation/values';
import { isJson, toJson } from '../export/encodings';
import { fn, pkg, s } from './builtin';
import { marshal, marshalStream, unmarshalJson, validates } from './marshal';

export const json = pkg('encoding/json', [
  fn('json.Marshal', ['any'], ([value]) => marshal(value, toJson)),
  fn('json.MarshalStream', ['list'], ([items]) => marshalStream(items, (data) => `${toJson(data)}\n`, '')),
  fn('json.Unmarshal', ['bytes'], ([text], from) => unmarshalJson(s(text), from)),
  fn('json.Valid', ['bytes'], ([text]) => isJson(s(text)), { validator: true }),
  fn('json.Validate', ['bytes', 'concrete'], ([text, schema], from) => validates(unmarshalJson(s(text), from), schema as Value, from), { validator: true }),
]);
