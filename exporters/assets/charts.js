// JankCharts: small SVG charts drawn from plain arrays (a line chart over
// time, grouped bars over time, horizontal bars, a histogram, a strip of
// values). Shared by the run report and the exporter's live page (issue 17),
// so it knows nothing of either page's data. No dependencies, no network;
// every string enters the DOM through textContent or setAttribute, never as
// markup. Each drawn value carries data-metric and data-value for tests.
(function (global) {
  'use strict';

  var NS = 'http://www.w3.org/2000/svg';
  // Okabe-Ito colours: distinct under the common colour-vision deficiencies.
  var palette = {
    blue: '#0072B2', orange: '#E69F00', vermillion: '#D55E00', sky: '#56B4E9',
    green: '#009E73', purple: '#CC79A7', yellow: '#F0E442', grey: '#6B7280'
  };
  var W = 560;  // every chart shares one width; CSS scales the viewBox

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== undefined && attrs[k] !== null) {
        node.setAttribute(k, String(attrs[k]));
      }
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  function label(parent, x, y, str, attrs) {
    var a = attrs || {};
    a.x = x;
    a.y = y;
    var node = el('text', a, parent);
    node.textContent = str;
    return node;
  }

  function tooltip(node, str) {
    el('title', {}, node).textContent = str;
  }

  // Up to `decimals` digits, trailing zeros dropped: 17, 16.7, 0.25.
  function fmt(v, decimals) {
    if (v === null || v === undefined || !isFinite(v)) return '\u2013';
    var d = decimals === undefined ? 2 : decimals;
    var s = Number(v).toFixed(d);
    if (s.indexOf('.') >= 0) s = s.replace(/0+$/, '').replace(/\.$/, '');
    return s === '-0' ? '0' : s;
  }

  // Axis ticks at 1, 2, 2.5 or 5 times a power of ten, covering [min, max].
  function ticks(min, max, count) {
    if (!(max > min)) max = min + 1;
    var raw = (max - min) / count;
    var mag = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var n = raw / mag;
    var step = (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * mag;
    var lo = Math.floor(min / step) * step;
    var hi = Math.ceil(max / step) * step;
    var out = [];
    for (var i = 0; lo + i * step <= hi + step / 2; i++) out.push(Number((lo + i * step).toFixed(10)));
    return out;
  }

  function finite(values) {
    return values.filter(function (v) { return v !== null && v !== undefined && isFinite(v); });
  }

  // A figure with a titled SVG of height `h` appended to `container`.
  function figure(container, opts, h, kind) {
    var fig = document.createElement('figure');
    fig.className = 'chart chart-' + kind;
    var svg = el('svg', {
      viewBox: '0 0 ' + W + ' ' + h, width: W, height: h, role: 'img',
      'class': 'jank-chart', 'data-chart': opts.id || kind, 'aria-label': opts.title || kind
    });
    var scope = opts.scope || {};
    for (var k in scope) {
      if (Object.prototype.hasOwnProperty.call(scope, k)) svg.setAttribute('data-' + k, String(scope[k]));
    }
    if (opts.title) label(svg, 12, 20, opts.title, {'class': 'chart-title'});
    fig.appendChild(svg);
    container.appendChild(fig);
    return svg;
  }

  function legend(svg, items) {
    var x = W - 12;
    for (var i = items.length - 1; i >= 0; i--) {
      var it = items[i];
      var t = label(svg, x, 20, it.name, {'class': 'legend', 'text-anchor': 'end'});
      var width = it.name.length * 6.6 + 6;
      x -= width;
      if (it.line) {
        el('line', {x1: x - 18, x2: x - 2, y1: 16, y2: 16, stroke: it.color, 'stroke-width': 2.5,
                    'stroke-dasharray': it.dash === 'ref' ? '2 3' : it.dash ? '5 3' : null}, svg);
      } else {
        el('rect', {x: x - 13, y: 10, width: 11, height: 11, rx: 2, fill: it.color, 'fill-opacity': it.opacity}, svg);
      }
      x -= 30;
      t.setAttribute('data-legend', it.name);
    }
  }

  // Axes and grid for a plot area; returns scale functions.
  function axes(svg, box, xDomain, yDomain, opts) {
    var yt = ticks(yDomain[0], yDomain[1], opts.yTicks || 5);
    var y0 = yt[0], y1 = yt[yt.length - 1];
    var sy = function (v) { return box.b - (v - y0) / (y1 - y0) * (box.b - box.t); };
    var sx = function (v) { return box.l + (v - xDomain[0]) / ((xDomain[1] - xDomain[0]) || 1) * (box.r - box.l); };
    var g = el('g', {'class': 'axis'}, svg);
    yt.forEach(function (v) {
      el('line', {x1: box.l, x2: box.r, y1: sy(v), y2: sy(v), 'class': 'grid'}, g);
      label(g, box.l - 6, sy(v) + 4, fmt(v, 2), {'text-anchor': 'end', 'class': 'tick'});
    });
    if (opts.xTicks) {
      ticks(xDomain[0], xDomain[1], opts.xTicks).forEach(function (v) {
        if (v < xDomain[0] || v > xDomain[1]) return;
        el('line', {x1: sx(v), x2: sx(v), y1: box.b, y2: box.b + 4, 'class': 'tick-mark'}, g);
        label(g, sx(v), box.b + 16, fmt(v, 2), {'text-anchor': 'middle', 'class': 'tick'});
      });
    }
    el('line', {x1: box.l, x2: box.r, y1: box.b, y2: box.b, 'class': 'baseline'}, g);
    if (opts.yLabel) {
      label(g, 14, (box.t + box.b) / 2, opts.yLabel,
            {'class': 'axis-title', 'text-anchor': 'middle', transform: 'rotate(-90 14 ' + (box.t + box.b) / 2 + ')'});
    }
    if (opts.xLabel) label(g, (box.l + box.r) / 2, opts.height - 6, opts.xLabel, {'class': 'axis-title', 'text-anchor': 'middle'});
    return {x: sx, y: sy, y0: y0, y1: y1};
  }

  function plotBox(h, bottom) { return {l: 58, r: W - 14, t: 36, b: h - bottom}; }

  // The x range of a time chart: [opts.xMin, opts.xMax] when given (the live
  // page: minutes before now), else [0, the largest x] (a run's seconds).
  function xRange(opts) {
    var lo = opts.xMin !== undefined ? opts.xMin : 0;
    var hi = opts.xMax !== undefined ? opts.xMax : Math.max.apply(null, opts.x.concat([1]));
    return [lo, hi];
  }

  // Vertical marks on a time chart, under the data: a line at `x` (a trace)
  // or a band from `x` to `end` (a run), clipped to the x range. Each mark:
  // {x, end, kind, id, label, title, href}; with href the mark is a link.
  function marks(svg, box, s, xr, list) {
    if (!list || !list.length) return;
    var g = el('g', {'class': 'marks'}, svg);
    list.forEach(function (m) {
      var band = m.end !== undefined && m.end !== null;
      if (!isFinite(m.x) || (band && !isFinite(m.end))) return;
      var a = Math.max(m.x, xr[0]), b = band ? Math.min(m.end, xr[1]) : m.x;
      if (a > xr[1] || b < xr[0] || b < a) return;
      var parent = m.href ? el('a', {href: m.href, 'class': 'mark-link'}, g) : g;
      var kind = m.kind || 'mark';
      var node = band
        ? el('rect', {x: s.x(a).toFixed(1), y: box.t, width: Math.max(1.5, s.x(b) - s.x(a)).toFixed(1), height: box.b - box.t,
                      'class': 'mark-band mark-' + kind, 'data-marker': kind, 'data-id': m.id, 'data-value': m.x,
                      'data-end': m.end}, parent)
        : el('line', {x1: s.x(a).toFixed(1), x2: s.x(a).toFixed(1), y1: box.t, y2: box.b, 'class': 'mark mark-' + kind,
                      'data-marker': kind, 'data-id': m.id, 'data-value': m.x}, parent);
      if (m.title || m.label) tooltip(node, m.title || m.label);
      if (m.label) label(parent, s.x(a) + 3, box.t + 10, m.label, {'class': 'mark-label'});
    });
  }

  // opts: title, x (seconds), series [{name, metric, values, color, dash}],
  // xLabel, yLabel, yMin, yAtLeast, refs [{value, label}], scope, id;
  // optional xMin, xMax (xRange), xUnit (tooltips; 's'), marks (marks()),
  // height, and keys [{name, color, opacity}]: legend entries of other
  // things drawn (a kind of mark).
  function line(container, opts) {
    var h = opts.height || 250;
    var svg = figure(container, opts, h, 'line');
    var box = plotBox(h, 44);
    var all = [];
    opts.series.forEach(function (s) { all = all.concat(finite(s.values)); });
    (opts.refs || []).forEach(function (r) { all.push(r.value); });
    if (!all.length) all.push(0);
    var yMin = opts.yMin !== undefined ? Math.min(opts.yMin, Math.min.apply(null, all.concat([opts.yMin]))) : Math.min.apply(null, all);
    var yMax = Math.max.apply(null, all.concat([opts.yAtLeast || yMin + 1]));
    var xr = xRange(opts);
    var s = axes(svg, box, xr, [yMin, yMax], {xTicks: 6, yLabel: opts.yLabel, xLabel: opts.xLabel, height: h});
    marks(svg, box, s, xr, opts.marks);
    (opts.refs || []).forEach(function (r) {  // named in the legend: a label on the plot hides points
      el('line', {x1: box.l, x2: box.r, y1: s.y(r.value), y2: s.y(r.value), 'class': 'ref', 'data-value': r.value}, svg);
    });
    opts.series.forEach(function (ser) {
      var d = '';
      var pen = false;
      ser.values.forEach(function (v, i) {
        if (v === null || v === undefined || !isFinite(v)) { pen = false; return; }  // a gap, not a zero
        d += (pen ? 'L' : 'M') + s.x(opts.x[i]).toFixed(1) + ' ' + s.y(v).toFixed(1);
        pen = true;
      });
      var path = el('path', {d: d || 'M0 0', fill: 'none', stroke: ser.color, 'stroke-width': 2.2,
                             'stroke-linejoin': 'round', 'stroke-dasharray': ser.dash ? '6 3' : null,
                             'class': 'series', 'data-metric': ser.metric,
                             'data-values': ser.values.map(function (v) { return v === null ? 'null' : String(v); }).join(',')}, svg);
      tooltip(path, ser.name);
      if (ser.values.length <= 240) {
        ser.values.forEach(function (v, i) {
          if (v === null || v === undefined || !isFinite(v)) return;
          var c = el('circle', {cx: s.x(opts.x[i]).toFixed(1), cy: s.y(v).toFixed(1), r: 2.6, fill: ser.color,
                                'class': 'point', 'data-metric': ser.metric, 'data-t': opts.x[i], 'data-value': v}, svg);
          tooltip(c, ser.name + ' ' + fmt(v, 2) + ' at ' + fmt(opts.x[i], 1) + ' ' + (opts.xUnit || 's'));
        });
      }
    });
    legend(svg, opts.series.map(function (x) { return {name: x.name, color: x.color, line: true, dash: x.dash}; })
      .concat((opts.refs || []).map(function (r) { return {name: r.label, color: '#8C959F', line: true, dash: 'ref'}; }))
      .concat(opts.keys || []));
    return svg;
  }

  // Grouped bars per time step: x = end of each step, `step` its length.
  // opts: title, x, step, series [{name, metric, values, color}], xLabel, yLabel;
  // optional xMin, xMax (xRange), xUnit (tooltips; 's') and marks (marks()).
  function bars(container, opts) {
    var h = opts.height || 250;
    var svg = figure(container, opts, h, 'bars');
    var box = plotBox(h, 44);
    var all = [];
    opts.series.forEach(function (s) { all = all.concat(finite(s.values)); });
    var xr = xRange(opts);
    var s = axes(svg, box, xr, [0, Math.max.apply(null, all.concat([1]))],
                 {xTicks: 6, yLabel: opts.yLabel, xLabel: opts.xLabel, height: h});
    marks(svg, box, s, xr, opts.marks);
    var n = opts.series.length;
    opts.series.forEach(function (ser, k) {
      var g = el('g', {'class': 'series', 'data-metric': ser.metric, fill: ser.color}, svg);
      ser.values.forEach(function (v, i) {
        if (v === null || v === undefined || !isFinite(v)) return;
        var end = opts.x[i];
        var start = i > 0 ? opts.x[i - 1] : Math.max(xr[0], end - (opts.step || end - xr[0]));
        var x0 = s.x(start), x1 = s.x(end);
        var gap = Math.min(1, (x1 - x0) * 0.15);
        var w = Math.max(0.6, (x1 - x0 - 2 * gap) / n);
        var top = s.y(Math.max(v, 0));
        var r = el('rect', {x: (x0 + gap + k * w).toFixed(2), y: top.toFixed(1), width: w.toFixed(2),
                            height: Math.max(0, box.b - top).toFixed(1), 'class': 'bar',
                            'data-metric': ser.metric, 'data-t': end, 'data-value': v}, g);
        tooltip(r, ser.name + ' ' + fmt(v, 2) + ' in ' + fmt(start, 1) + '\u2013' + fmt(end, 1) + ' ' + (opts.xUnit || 's'));
      });
    });
    legend(svg, opts.series.map(function (x) { return {name: x.name, color: x.color}; }));
    return svg;
  }

  // Horizontal bars, largest first. opts: title, items [{label, value}],
  // metric, color, xLabel, scope, id.
  function hbars(container, opts) {
    var items = opts.items.slice().sort(function (a, b) { return b.value - a.value || (a.label < b.label ? -1 : 1); });
    var rowH = 22;
    var h = 44 + items.length * rowH + 34;
    var svg = figure(container, opts, h, 'hbars');
    var box = {l: 190, r: W - 60, t: 40, b: h - 34};
    var max = Math.max.apply(null, items.map(function (i) { return i.value; }).concat([1]));
    var xt = ticks(0, max, 4);
    var top = xt[xt.length - 1];
    var sx = function (v) { return box.l + v / top * (box.r - box.l); };
    var g = el('g', {'class': 'axis'}, svg);
    xt.forEach(function (v) {
      el('line', {x1: sx(v), x2: sx(v), y1: box.t - 4, y2: box.b, 'class': 'grid'}, g);
      label(g, sx(v), box.b + 14, fmt(v, 2), {'text-anchor': 'middle', 'class': 'tick'});
    });
    if (opts.xLabel) label(g, (box.l + box.r) / 2, h - 4, opts.xLabel, {'class': 'axis-title', 'text-anchor': 'middle'});
    var total = items.reduce(function (a, i) { return a + i.value; }, 0);
    items.forEach(function (it, i) {
      var y = box.t + i * rowH;
      var name = it.label.length > 30 ? it.label.slice(0, 29) + '\u2026' : it.label;
      var t = label(svg, box.l - 8, y + 14, name, {'text-anchor': 'end', 'class': 'cat'});
      tooltip(t, it.label);
      var r = el('rect', {x: box.l, y: y + 3, width: Math.max(0, sx(it.value) - box.l).toFixed(1), height: rowH - 7, rx: 2,
                          fill: opts.color, 'class': 'bar', 'data-metric': opts.metric, 'data-key': it.label,
                          'data-value': it.value}, svg);
      tooltip(r, it.label + ': ' + fmt(it.value, 2) + (total ? ' (' + fmt(it.value / total * 100, 1) + ' %)' : ''));
      label(svg, sx(it.value) + 5, y + 14, fmt(it.value, 2),
            {'class': 'value', 'data-metric': opts.metric, 'data-key': it.label, 'data-value': it.value});
    });
    return svg;
  }

  // Bars per histogram bucket. bounds: upper bounds in the unit shown;
  // counts: per bucket, the last one above the last bound.
  // opts: title, bounds, counts, unit, metric, color, xLabel, yLabel.
  function histogram(container, opts) {
    var h = opts.height || 284;
    var svg = figure(container, opts, h, 'histogram');
    var box = plotBox(h, 80);  // room for the slanted bucket labels
    var n = opts.counts.length;
    var s = axes(svg, box, [0, n], [0, Math.max.apply(null, opts.counts.concat([1]))],
                 {yLabel: opts.yLabel, xLabel: opts.xLabel, height: h});
    var total = opts.counts.reduce(function (a, c) { return a + c; }, 0);
    var slot = (box.r - box.l) / n;
    opts.counts.forEach(function (c, i) {
      var lo = i > 0 ? opts.bounds[i - 1] : null;
      var hi = i < opts.bounds.length ? opts.bounds[i] : null;
      var name = hi === null ? '>' + fmt(lo, 1) : lo === null ? '\u2264' + fmt(hi, 1) : fmt(lo, 1) + '\u2013' + fmt(hi, 1);
      var top = s.y(c);
      var r = el('rect', {x: (box.l + i * slot + slot * 0.12).toFixed(1), y: top.toFixed(1), width: (slot * 0.76).toFixed(1),
                          height: Math.max(0, box.b - top).toFixed(1), rx: 1.5, fill: opts.color, 'class': 'bar',
                          'data-metric': opts.metric, 'data-bucket': i, 'data-value': c}, svg);
      tooltip(r, name + ' ' + opts.unit + ': ' + fmt(c, 0) + ' frames' + (total ? ' (' + fmt(c / total * 100, 1) + ' %)' : ''));
      if (c > 0) {  // the tail is what matters, and its bars are too short to see
        label(svg, box.l + (i + 0.5) * slot, top - 3, fmt(c, 0),
              {'class': 'value', 'text-anchor': 'middle', 'data-metric': opts.metric, 'data-bucket': i, 'data-value': c});
      }
      var cx = box.l + (i + 0.5) * slot;
      label(svg, cx + 3, box.b + 12, name, {'class': 'tick', 'text-anchor': 'end',
                                            transform: 'rotate(-40 ' + (cx + 3).toFixed(1) + ' ' + (box.b + 12) + ')'});
    });
    return svg;
  }

  // One row of dots per group on a shared scale, the median as a bar.
  // opts: rows [{name, values, median, color}], unit, metric, scope.
  function strip(container, opts) {
    var h = 20 + opts.rows.length * 18;
    var width = 300;
    var svg = el('svg', {viewBox: '0 0 ' + width + ' ' + h, width: width, height: h, 'class': 'jank-chart strip',
                         'data-chart': 'strip', 'data-metric': opts.metric, role: 'img', 'aria-label': opts.metric});
    container.appendChild(svg);
    var all = [];
    opts.rows.forEach(function (r) { all = all.concat(finite(r.values).concat(finite([r.median]))); });
    if (!all.length) return svg;
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (hi === lo) { lo -= 1; hi += 1; }
    var pad = (hi - lo) * 0.06;
    lo -= pad; hi += pad;
    var sx = function (v) { return 12 + (v - lo) / (hi - lo) * (width - 24); };
    opts.rows.forEach(function (r, k) {
      var y = 10 + k * 18;
      el('line', {x1: 12, x2: width - 12, y1: y, y2: y, 'class': 'grid'}, svg);
      var g = el('g', {fill: r.color, 'data-group': r.name}, svg);
      r.values.forEach(function (v) {
        var c = el('circle', {cx: sx(v).toFixed(1), cy: y, r: 4, 'fill-opacity': 0.55, 'class': 'point',
                              'data-metric': opts.metric, 'data-value': v}, g);
        tooltip(c, r.name + ' ' + fmt(v, 3) + (opts.unit ? ' ' + opts.unit : ''));
      });
      if (r.median !== null && r.median !== undefined) {
        el('line', {x1: sx(r.median), x2: sx(r.median), y1: y - 7, y2: y + 7, stroke: '#111', 'stroke-width': 2.5,
                    'class': 'median', 'data-value': r.median}, svg);
      }
    });
    label(svg, 12, h - 2, fmt(lo + pad, 2), {'class': 'tick'});
    label(svg, width - 12, h - 2, fmt(hi - pad, 2) + (opts.unit ? ' ' + opts.unit : ''), {'class': 'tick', 'text-anchor': 'end'});
    return svg;
  }

  global.JankCharts = {palette: palette, fmt: fmt, ticks: ticks, line: line, bars: bars, hbars: hbars,
                       histogram: histogram, strip: strip};
})(window);
