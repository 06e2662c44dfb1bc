// Writes a broken copy of a dashboard for the schema check's negative test and
// prints the JSON pointers the check must report, one a line. Each break is
// one the check exists for, and each is reached by a different path:
//   - the data source variable's `current` emptied (the dashboard schema);
//   - a timeseries panel's legend.showLegend as a string (the panel kind's
//     Options: the dashboard schema leaves `options` open), and its first
//     query's `instant` as a string (the Prometheus query schema);
//   - the same panel, copied into a collapsed row appended at the end, with
//     its custom line width as a string (the kind's FieldConfig, and panels
//     nested in rows);
//   - a panel type no schema covers.
//
//   node break_dashboard.mjs DASHBOARD.json OUT.json
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
const dashboard = JSON.parse(fs.readFileSync(input, 'utf8'));
const expected = [];
const fail = (why) => {
  console.error(`break_dashboard: ${why}`);
  process.exit(2);
};

const variables = dashboard.templating?.list ?? [];
const ds = variables.findIndex((v) => v.type === 'datasource');
if (ds < 0) fail('no data source variable');
variables[ds].current = {};
expected.push(`/templating/list/${ds}/current`);

const panels = dashboard.panels ?? [];
const ts = panels.findIndex((p) => p.type === 'timeseries' && p.options?.legend && p.fieldConfig?.defaults);
if (ts < 0) fail('no timeseries panel with a legend');
const nested = structuredClone(panels[ts]);
panels[ts].options.legend.showLegend = 'yes';
expected.push(`/panels/${ts}/options/legend/showLegend`);
if (panels[ts].datasource?.type !== 'prometheus' || !panels[ts].targets?.length) fail('the panel has no Prometheus query');
panels[ts].targets[0].instant = 'yes';
expected.push(`/panels/${ts}/targets/0/instant`);

nested.id = Math.max(0, ...panels.map((p) => p.id ?? 0)) + 1;
nested.fieldConfig.defaults.custom = {...nested.fieldConfig.defaults.custom, lineWidth: 'thick'};
const rowY = Math.max(0, ...panels.map((p) => (p.gridPos?.y ?? 0) + (p.gridPos?.h ?? 0)));
panels.push({type: 'row', title: 'broken', id: nested.id + 1, collapsed: true, gridPos: {h: 1, w: 24, x: 0, y: rowY},
             panels: [nested]});
expected.push(`/panels/${panels.length - 1}/panels/0/fieldConfig/defaults/custom/lineWidth`);

const other = panels.findIndex((p, i) => i !== ts && p.type !== 'row');
panels[other].type = 'no-such-panel';
expected.push(`/panels/${other}/type`);

fs.writeFileSync(output, JSON.stringify(dashboard, null, 2));
console.log(expected.join('\n'));
