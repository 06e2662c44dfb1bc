// Validates Grafana dashboards against Grafana's published draft-07 JSON
// schemas (one folder of *.jsonschema.json files, ../shared/grafana-schema).
//
//   node validate_dashboards.mjs SCHEMA_DIR DASHBOARD.json...
//
// What is checked, for each dashboard:
//   - the whole dashboard against dashboard.jsonschema.json, once the
//     "export for sharing" keys __inputs and __requires are removed (they are
//     import metadata, not part of the dashboard model);
//   - each panel, top-level or inside a row, against the schema of its kind:
//     a panel's `type` names a file (lower case, without '-': state-timeline
//     → statetimeline.jsonschema.json) whose definition Options covers
//     `options` and whose FieldConfig, when it has one, covers
//     `fieldConfig.defaults.custom`. The dashboard schema leaves both open
//     (any object), so without this a misspelt option would pass. A panel
//     without `options` gets Grafana's defaults and is not checked there;
//   - each query of a panel whose data source is Prometheus against
//     prometheus.jsonschema.json, for the same reason (targets are open too).
// A panel kind with no schema in the folder is an error: it is a typo or a
// plugin the shipped dashboards must not need. Two properties the published
// schema types wrongly are corrected first (anyValued, below).
//
// Every error is printed as FILE: JSON-POINTER: message, the pointer counted
// from the dashboard's root. Exit 0 when all are valid, 1 on any error, 2 when
// the arguments, the schema folder or a schema are unusable.
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

// A schema ajv cannot compile, or a file it cannot read, is not a verdict on
// a dashboard: exit 2, never the 1 that means "invalid".
process.on('uncaughtException', (e) => {
  console.error(`validate_dashboards: ${e.stack ?? e}`);
  process.exit(2);
});

const [schemaDir, ...dashboards] = process.argv.slice(2);
if (!schemaDir || dashboards.length === 0) {
  console.error('usage: validate_dashboards.mjs SCHEMA_DIR DASHBOARD.json...');
  process.exit(2);
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// allErrors: report everything at once rather than the first error per run.
// Strict mode stays on so that a schema ajv would misread fails loudly; the
// one vendor keyword Grafana's schemas use is an annotation, declared here.
const ajv = new Ajv({allErrors: true, strict: true});
ajv.addKeyword({keyword: 'x-deprecation-message', schemaType: 'string'});
addFormats(ajv);

function schemaFile(name) {
  return path.join(schemaDir, name);
}

const dashboardFile = schemaFile('dashboard.jsonschema.json');
if (!fs.existsSync(dashboardFile)) {
  console.error(`no ${dashboardFile}`);
  process.exit(2);
}
// Grafana's own dashboard model declares a field matcher's options and an
// override's value as any JSON value (the kind's `_`): a byName matcher takes
// the field name as a string, and overrides set strings and numbers. The
// published JSON schema renders that `_` as "type": "object", which would
// reject every ordinary override. Those two properties, and only while the
// schema still types them so, are loosened to any value; the run says so.
const anyValued = [['MatcherConfig', 'options'], ['DynamicConfigValue', 'value']];
function loosenAnyValued(schema, file) {
  for (const [def, prop] of anyValued) {
    const property = schema.definitions?.[def]?.properties?.[prop];
    if (property && property.type === 'object') {
      schema.definitions[def].properties[prop] = {description: property.description ?? ''};
      console.log(`note: ${file}: ${def}.${prop} accepts any JSON value (Grafana's model), not only an object`);
    }
  }
  return schema;
}
const validateDashboard = ajv.compile(loosenAnyValued(readJson(dashboardFile), 'dashboard.jsonschema.json'));

// One schema per file name, added once; definitions fetched by "file#/definitions/X".
const loaded = new Set();
function definition(file, name) {
  if (!fs.existsSync(schemaFile(file))) return null;
  if (!loaded.has(file)) {
    ajv.addSchema(loosenAnyValued(readJson(schemaFile(file)), file), file);
    loaded.add(file);
  }
  const schema = ajv.getSchema(file);
  if (!schema.schema.definitions || !(name in schema.schema.definitions)) return null;
  return ajv.getSchema(`${file}#/definitions/${name}`);
}

function panelKindFile(type) {
  return `${String(type).toLowerCase().replace(/[^a-z0-9]/g, '')}.jsonschema.json`;
}

// JSON pointer escaping (RFC 6901) for keys we append ourselves.
function pointer(...parts) {
  return parts.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

function report(errors, file, base, validate, schemaName) {
  for (const e of validate.errors ?? []) {
    const where = base + e.instancePath || '(root)';
    const extra = e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : '';
    errors.push(`${file}: ${where}: ${e.message}${extra} (${schemaName}: ${e.schemaPath})`);
  }
}

function checkPanel(errors, file, panel, at) {
  if (panel === null || typeof panel !== 'object' || typeof panel.type !== 'string') return;  // the dashboard schema says so
  if (panel.type === 'row') {
    (panel.panels ?? []).forEach((p, i) => checkPanel(errors, file, p, at + pointer('panels', i)));
    return;
  }
  const kind = panelKindFile(panel.type);
  const options = definition(kind, 'Options');
  if (!options) {
    errors.push(`${file}: ${at}/type: no panel schema for type "${panel.type}" (${kind} with definitions.Options)`);
    return;
  }
  if (panel.options !== undefined && !options(panel.options)) report(errors, file, at + '/options', options, kind);
  const custom = panel.fieldConfig?.defaults?.custom;
  const fieldConfig = definition(kind, 'FieldConfig');
  if (custom !== undefined && fieldConfig && !fieldConfig(custom)) {
    report(errors, file, at + '/fieldConfig/defaults/custom', fieldConfig, kind);
  }
  if (panel.datasource?.type === 'prometheus') {
    const query = definition('prometheus.jsonschema.json', 'Dataquery');
    if (!query) {
      errors.push(`${file}: ${at}: no prometheus.jsonschema.json with definitions.Dataquery`);
      return;
    }
    (panel.targets ?? []).forEach((t, i) => {
      if (!query(t)) report(errors, file, at + pointer('targets', i), query, 'prometheus.jsonschema.json');
    });
  }
}

let failed = 0;
for (const file of dashboards) {
  const errors = [];
  let dashboard;
  try {
    dashboard = readJson(file);
  } catch (e) {
    console.error(`${file}: ${e.message}`);
    failed++;
    continue;
  }
  const model = {...dashboard};
  delete model.__inputs;
  delete model.__requires;
  if (!validateDashboard(model)) report(errors, file, '', validateDashboard, 'dashboard.jsonschema.json');
  (Array.isArray(model.panels) ? model.panels : []).forEach((p, i) => checkPanel(errors, file, p, pointer('panels', i)));
  for (const e of errors) console.log(e);
  console.log(`${file}: ${errors.length === 0 ? 'valid' : `${errors.length} error(s)`}`);
  if (errors.length) failed++;
}
process.exit(failed ? 1 : 0);
