// The live view's script (docs/live-view.md). The server writes every page
// complete; this only adds: on `/`, sorting by a column and refreshing the
// table from /api/devices every sample; on /devices/SERIAL, the charts
// (charts.js) from /api/devices/SERIAL, redrawn every sample. Data enters the
// DOM through textContent and setAttribute only, never as markup. Loaded
// before charts.js so that its error catcher sees charts.js fail too; every
// error is counted on <html data-js-errors> and shown on the page.
(function () {
  'use strict';

  var root = document.documentElement;
  var errors = [];

  function noteError(message) {
    errors.push(String(message));
    root.setAttribute('data-js-errors', String(errors.length));
    var box = document.getElementById('js-errors');
    if (box) { box.hidden = false; box.textContent = 'Script failed: ' + errors.join('; '); }
  }
  window.addEventListener('error', function (e) { noteError(e.message || 'error'); });
  window.addEventListener('unhandledrejection', function (e) { noteError(e.reason || 'rejection'); });

  var MISSING = '\u2013';
  // The device table, as exporters/live_pages.cc writes it (kColumns): keep the two in step.
  var COLUMNS = [
    {key: 'serial', kind: 'serial'},
    {key: 'model', kind: 'text'},
    {key: 'release', kind: 'text'},
    {key: 'refresh_hz', kind: 'number', decimals: 2, trim: true},
    {key: 'status', kind: 'status'},
    {key: 'sm', kind: 'number', decimals: 1},
    {key: 'fps', kind: 'number', decimals: 1},
    {key: 'jank_percent', kind: 'number', decimals: 1},
    {key: 'skipped_per_minute', kind: 'number', decimals: 1},
    {key: 'davey_per_minute', kind: 'number', decimals: 1},
    {key: 'big_jank_per_minute', kind: 'number', decimals: 1},
    {key: 'thermal_status', kind: 'thermal', decimals: 0}
  ];
  var TOTALS = ['skipped_frames', 'davey_frames', 'big_jank', 'frozen_frames', 'layer_frozen_frames'];
  var THERMAL = ['none', 'light', 'moderate', 'severe', 'critical', 'emergency', 'shutdown'];

  function num(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
  function str(v) {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && isFinite(v)) return String(v);
    return '';
  }

  // v.toFixed(d), except that an exact tie goes to the even digit, as the
  // server's std::to_chars does (toFixed rounds it up): 100.25 reads 100.2
  // before and after a refresh.
  function fixed(v, d) {
    var exact = Math.abs(v).toFixed(100);  // every digit of the double
    var dot = exact.indexOf('.');
    if (/^50*$/.test(exact.slice(dot + 1 + d))) {
      var kept = exact.slice(0, d ? dot + 1 + d : dot);
      if (Number(kept.charAt(kept.length - 1)) % 2 === 0) return (v < 0 ? '-' : '') + kept;
    }
    return v.toFixed(d);
  }

  function shown(v, col) {
    var s = fixed(v, col.decimals);
    if (col.trim && s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    if (/^-0(\.0*)?$/.test(s)) s = s.slice(1);  // no "-0.0", as the server
    return s;
  }

  // 't-bad', 't-warn' or '': the thresholds of docs/live-view.md.
  function threshold(key, dev) {
    var v = num(dev[key]);
    if (v === null) return '';
    if (key === 'sm') {
      var hz = num(dev.refresh_hz);
      if (hz === null || hz <= 0) return '';
      return v < 0.75 * hz ? 't-bad' : v < 0.9 * hz ? 't-warn' : '';
    }
    if (key === 'jank_percent') return v > 10 ? 't-bad' : v > 5 ? 't-warn' : '';
    if (key === 'thermal_status') return v >= 3 ? 't-bad' : '';
    return '';
  }

  function thresholdNote(key, cls) {
    if (!cls) return '';
    if (key === 'sm') return cls === 't-bad' ? 'below 75 % of the refresh rate' : 'below 90 % of the refresh rate';
    if (key === 'jank_percent') return cls === 't-bad' ? 'over 10 %' : 'over 5 %';
    return 'throttling (severe or worse)';
  }

  function element(name, attrs, text) {
    var node = document.createElement(name);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== undefined && attrs[k] !== '') {
        node.setAttribute(k, attrs[k]);
      }
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cell(col, dev) {
    if (col.kind === 'serial') {
      var serial = str(dev.serial);
      var td = element('td', {'class': 'serial', 'data-metric': col.key, 'data-value': serial});
      // serial_path is made from the serial's bytes: one that is not UTF-8
      // reads as U+FFFD in dev.serial, and a link made from that leads nowhere.
      var segment = /^[A-Za-z0-9%._~-]+$/.test(str(dev.serial_path)) ? str(dev.serial_path) : encodeURIComponent(serial);
      td.appendChild(element('a', {href: '/devices/' + segment}, serial));
      return td;
    }
    if (col.kind === 'text' || col.kind === 'status') {
      var value = str(dev[col.key]);
      if (!value) return element('td', {'class': 'missing', 'data-metric': col.key}, MISSING);
      if (col.kind === 'text') return element('td', {'class': col.key, 'data-metric': col.key, 'data-value': value}, value);
      var st = element('td', {'data-metric': col.key, 'data-value': value});
      st.appendChild(element('span', {'class': 'status status-' + value, title: str(dev.status_reason)}, value));
      return st;
    }
    var v = num(dev[col.key]);
    if (v === null) return element('td', {'class': 'num missing', 'data-metric': col.key}, MISSING);
    var mark = threshold(col.key, dev);
    var text = shown(v, col);
    if (col.kind === 'thermal' && v === Math.round(v) && v >= 0 && v < THERMAL.length) text += ' ' + THERMAL[v];
    var title = thresholdNote(col.key, mark);
    if (col.key === 'skipped_per_minute' && dev.totals && num(dev.totals.skipped_frames) !== null) {
      title += (title ? '; ' : '') + String(dev.totals.skipped_frames) + ' skipped frames in all';
    }
    if (col.key === 'davey_per_minute' && dev.totals && num(dev.totals.frozen_frames) !== null) {
      title += (title ? '; ' : '') + String(dev.totals.frozen_frames) + ' frozen frames in all';
    }
    // SM sorts as a share of the refresh rate, as the server orders it.
    var hz = num(dev.refresh_hz);
    var share = col.key === 'sm' && hz !== null && hz > 0 ? String(v / hz) : undefined;
    return element('td', {'class': mark ? 'num ' + mark : 'num', 'data-metric': col.key, 'data-value': String(v),
                          'data-sort': share, title: title}, text);
  }

  function row(dev) {
    var status = str(dev.status);
    var tr = element('tr', {'data-serial': str(dev.serial), 'class': status ? 'status-' + status : ''});
    TOTALS.forEach(function (t) {
      var v = dev.totals ? num(dev.totals[t]) : null;
      tr.setAttribute('data-total-' + t.replace(/_/g, '-'), v === null ? 'null' : String(v));
    });
    COLUMNS.forEach(function (col) { tr.appendChild(cell(col, dev)); });
    return tr;
  }

  // The cell of `key` in a row: its value for sorting (null sorts last either way).
  function sortValue(tr, key, type) {
    var td = tr.querySelector('td[data-metric="' + key + '"]');
    if (!td || !td.hasAttribute('data-value')) return null;
    var raw = td.hasAttribute('data-sort') ? td.getAttribute('data-sort') : td.getAttribute('data-value');
    return type === 'number' ? Number(raw) : raw;
  }

  function compareRows(key, type, dir) {
    return function (a, b) {
      var va = sortValue(a, key, type), vb = sortValue(b, key, type);
      if ((va === null) !== (vb === null)) return va === null ? 1 : -1;
      if (va !== null && va !== vb) return (va < vb ? -1 : 1) * dir;
      var sa = a.getAttribute('data-serial'), sb = b.getAttribute('data-serial');
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    };
  }

  function utcTime(seconds) {
    var d = new Date(Math.floor(seconds) * 1000);
    function two(n) { return (n < 10 ? '0' : '') + n; }
    return d.getUTCFullYear() + '-' + two(d.getUTCMonth() + 1) + '-' + two(d.getUTCDate()) + ' ' +
           two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds()) + ' UTC';
  }

  function setStatus(text) {
    var box = document.getElementById('live-status');
    if (box) box.textContent = text;
  }

  function getJson(url) {
    return fetch(url, {cache: 'no-store', credentials: 'same-origin', headers: {Accept: 'application/json'}})
      .then(function (r) {
        if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
        return r.json();
      });
  }

  // Seconds between refreshes: the exporter's sample period, else 5.
  function period(seconds) {
    var s = Number(seconds);
    return isFinite(s) && s >= 1 ? s : 5;
  }

  function count(n) { return n + (n === 1 ? ' device' : ' devices'); }

  // `/`: sortable headers, and the rows rebuilt from /api/devices.
  function devicesPage() {
    var table = document.getElementById('devices');
    var body = table.tBodies[0];
    var sort = {key: 'sm', type: 'number', dir: 1};
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);

    function applySort() {
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(compareRows(sort.key, sort.type, sort.dir));
      rows.forEach(function (tr) { body.appendChild(tr); });
      heads.forEach(function (th) {
        if (th.getAttribute('data-key') === sort.key) th.setAttribute('aria-sort', sort.dir > 0 ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
      });
    }

    heads.forEach(function (th) {
      // A button in the header: reachable by keyboard, and nothing to press without JS.
      var button = element('button', {type: 'button', 'class': 'sort', title: 'Sort by this column'});
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener('click', function () {
        var key = th.getAttribute('data-key');
        sort = {key: key, type: th.getAttribute('data-type'), dir: sort.key === key ? -sort.dir : 1};
        applySort();
      });
    });

    var refreshes = 0;
    function refresh() {
      return getJson(document.body.getAttribute('data-api') || '/api/devices').then(function (doc) {
        var devices = Array.isArray(doc.devices) ? doc.devices : [];
        var rows = devices.map(row);
        while (body.firstChild) body.removeChild(body.firstChild);
        rows.forEach(function (tr) { body.appendChild(tr); });
        applySort();
        var n = document.getElementById('device-count');
        if (n) { n.setAttribute('data-value', String(devices.length)); n.textContent = String(devices.length); }
        var at = document.getElementById('generated-at');
        if (at && num(doc.generated_at) !== null) {
          at.setAttribute('data-value', String(doc.generated_at));
          at.textContent = utcTime(doc.generated_at);
        }
        var none = document.getElementById('no-devices');
        if (none) none.hidden = devices.length > 0;
        document.title = 'jank_exporter \u00b7 ' + count(devices.length);
        setStatus('');
        root.setAttribute('data-refreshes', String(++refreshes));
      }, function (e) {
        setStatus('Refresh failed (' + (e && e.message ? e.message : e) + '); the table shows the last figures.');
      });
    }

    applySort();
    root.setAttribute('data-render', 'done');
    window.setInterval(refresh, period(document.body.getAttribute('data-sample-seconds')) * 1000);
  }

  // /devices/SERIAL: its row and charts from /api/devices/SERIAL.
  function devicePage() {
    var C = window.JankCharts;
    var P = C.palette;
    var box = document.getElementById('charts');
    var api = document.body.getAttribute('data-api');

    function measured(values) {
      return Array.isArray(values) && values.some(function (v) { return num(v) !== null; });
    }

    // What the phone was doing, on the SM/FPS chart's x axis (the same x, the
    // same range): CPU as percents, a band over each stretch of samples that
    // found a CPU cluster capped, and the apps' memory below. Only what the
    // resource poll measured is drawn.
    function resourceCharts(h, x, xMin, step, marks, xLabel, scope) {
      var cpu = [];
      if (measured(h.app_cpu_percent)) {
        cpu.push({name: 'apps', metric: 'app_cpu_percent', values: h.app_cpu_percent, color: P.green});
      }
      if (measured(h.main_thread_cpu_percent)) {
        cpu.push({name: 'main thread (busiest)', metric: 'main_thread_cpu_percent', values: h.main_thread_cpu_percent,
                  color: P.blue, dash: true});
      }
      if (measured(h.device_cpu_percent)) {
        cpu.push({name: 'device busy', metric: 'device_cpu_percent', values: h.device_cpu_percent, color: P.grey});
      }
      var capped = Array.isArray(h.cpu_capped) ? h.cpu_capped : [];
      var bands = [];
      for (var i = 0; i < capped.length && i < x.length; i++) {
        if (capped[i] !== true) continue;
        var from = i > 0 ? x[i - 1] : Math.max(xMin, x[i] - step);
        var last = bands.length ? bands[bands.length - 1] : null;
        if (last && last.end === from) last.end = x[i];
        else bands.push({kind: 'capped', id: 'capped-' + bands.length, x: from, end: x[i]});
      }
      bands.forEach(function (b) { b.title = 'a CPU cluster capped below its highest clock'; });
      if (cpu.length) {
        C.line(box, {id: 'cpu', title: 'CPU', x: x, xMin: xMin, xMax: 0, xUnit: 'min', series: cpu, yMin: 0,
                     yAtLeast: 100, marks: bands.concat(marks),
                     keys: bands.length ? [{name: 'capped', color: P.vermillion, opacity: 0.25}] : [],
                     xLabel: xLabel, yLabel: '% of a core (device: of all)', scope: scope});
      }
      if (measured(h.app_rss_mib)) {
        C.line(box, {id: 'memory', title: 'Memory (measured apps, resident)', x: x, xMin: xMin, xMax: 0, xUnit: 'min',
                     series: [{name: 'apps', metric: 'app_rss_mib', values: h.app_rss_mib, color: P.purple}],
                     yMin: 0, height: 180, marks: marks, xLabel: xLabel, yLabel: 'MiB', scope: scope});
      }
    }

    function draw(dev) {
      var table = document.getElementById('device');
      var body = table.tBodies[0];
      while (body.firstChild) body.removeChild(body.firstChild);
      body.appendChild(row(dev));
      while (box.firstChild) box.removeChild(box.firstChild);

      var h = dev.history || {};
      var t = Array.isArray(h.t) ? h.t : [];
      var scope = {serial: str(dev.serial)};
      if (!t.length) {
        box.appendChild(element('p', {'class': 'note', id: 'no-history'},
                                'No sample yet: the first comes within a sample period of the device appearing.'));
      } else {
        // Minutes before the document was made: an open run reaches now, and
        // a run or trace that began after the newest sample still shows.
        var ref = num(dev.generated_at) !== null ? Math.max(dev.generated_at, t[t.length - 1]) : t[t.length - 1];
        var minutes = function (s) { return (s - ref) / 60; };
        var x = t.map(minutes);
        var xMin = Math.min(x[0], -1);
        var marks = [];
        (Array.isArray(dev.runs) ? dev.runs : []).forEach(function (r) {
          if (num(r.start) === null) return;
          var name = str(r.name) || str(r.id);
          marks.push({kind: 'run', id: str(r.id), x: minutes(r.start), end: num(r.end) === null ? 0 : minutes(r.end),
                      label: name, title: 'run ' + name + (num(r.end) === null ? ' (open)' : '')});
        });
        (Array.isArray(dev.traces) ? dev.traces : []).forEach(function (tr) {
          if (num(tr.time) === null) return;
          var id = str(tr.id);
          // The link is made from the id: it can only name a trace of this exporter.
          marks.push({kind: 'trace', id: id, x: minutes(tr.time), href: '/traces/' + encodeURIComponent(id) + '.pftrace',
                      title: 'trace ' + id + (str(tr.rule) ? ' (' + str(tr.rule) + ')' : '') + ': download'});
        });
        var xLabel = 'minutes before ' + utcTime(ref);
        var lines = [];
        if (Array.isArray(h.sm)) lines.push({name: 'SM', metric: 'sm', values: h.sm, color: P.blue});
        if (Array.isArray(h.fps)) lines.push({name: 'FPS', metric: 'fps', values: h.fps, color: P.orange, dash: true});
        var hz = num(dev.refresh_hz);
        C.line(box, {id: 'sm-fps', title: 'SM and FPS', x: x, xMin: xMin, xMax: 0, xUnit: 'min', series: lines,
                     yMin: 0, yAtLeast: hz || 60, refs: hz ? [{value: hz, label: C.fmt(hz, 2) + ' Hz refresh'}] : [],
                     marks: marks, xLabel: xLabel, yLabel: 'frames/s', scope: scope});
        var bars = [];
        if (Array.isArray(h.skipped_frames)) {
          bars.push({name: 'skipped frames', metric: 'skipped_frames', values: h.skipped_frames, color: P.vermillion});
        }
        var step = t.length > 1 ? t[t.length - 1] - t[t.length - 2] : period(document.body.getAttribute('data-sample-seconds'));
        C.bars(box, {id: 'skipped', title: 'Skipped frames per sample', x: x, step: step / 60, xMin: xMin, xMax: 0,
                     xUnit: 'min', series: bars, marks: marks, xLabel: xLabel, yLabel: 'frames', scope: scope});
        resourceCharts(h, x, xMin, step / 60, marks, xLabel, scope);
        // What measuring cost the phone, on the same axis: the exporter's own commands.
        if (measured(h.commands_per_second)) {
          C.line(box, {id: 'commands', title: 'The exporter\'s commands on the device', x: x, xMin: xMin, xMax: 0,
                       xUnit: 'min', series: [{name: 'commands/s', metric: 'commands_per_second',
                                               values: h.commands_per_second, color: P.grey}],
                       yMin: 0, height: 160, marks: marks, xLabel: xLabel, yLabel: 'commands/s', scope: scope});
        }
      }
      var ft = dev.frame_time;
      if (ft && Array.isArray(ft.bounds_ms) && Array.isArray(ft.counts) && ft.counts.length) {
        C.histogram(box, {id: 'frame-time', title: 'Frame time distribution (HWUI, over the history)', unit: 'ms',
                          metric: 'frame_time', bounds: ft.bounds_ms, counts: ft.counts, color: P.blue,
                          xLabel: 'frame time (ms)', yLabel: 'frames', scope: scope});
      }
      var causes = dev.jank_causes && typeof dev.jank_causes === 'object'
        ? Object.keys(dev.jank_causes).map(function (k) { return {label: k, value: Number(dev.jank_causes[k])}; })
        : [];
      if (causes.length) {
        C.hbars(box, {id: 'jank-causes', title: 'Jank causes (HWUI, over the history)', items: causes,
                      metric: 'jank_causes', color: P.vermillion, xLabel: 'janky frames', scope: scope});
      }
    }

    // The page's sample period when it gives one, else the history's last step.
    function next(dev) {
      var given = document.body.getAttribute('data-sample-seconds');
      var t = dev && dev.history && Array.isArray(dev.history.t) ? dev.history.t : [];
      var step = !given && t.length > 1 ? Math.min(60, t[t.length - 1] - t[t.length - 2]) : given;
      window.setTimeout(load, period(step) * 1000);
    }

    var loads = 0;
    function load() {
      return getJson(api).then(function (dev) {
        draw(dev);
        setStatus('');
        root.setAttribute('data-refreshes', String(++loads));
        root.setAttribute('data-render', 'done');
        next(dev);
      }, function (e) {
        setStatus('Loading the charts failed (' + (e && e.message ? e.message : e) + '); trying again.');
        next(null);
      });
    }

    load();
  }

  document.addEventListener('DOMContentLoaded', function () {
    var page = document.body.getAttribute('data-page');
    if (page === 'devices') devicesPage();
    else if (page === 'device') devicePage();
    else root.setAttribute('data-render', 'done');
  });
})();
