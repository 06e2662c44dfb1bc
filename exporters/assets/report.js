// The run report's charts: reads the page's data (<script id="report-data">)
// and draws, per run and device, into the containers the server wrote. The
// tables are already in the HTML; this only adds pictures. Any error is
// counted on <html data-js-errors> by the page's error catcher.
(function () {
  'use strict';

  var C = window.JankCharts;
  var P = C.palette;

  function entries(map) {
    return Object.keys(map || {}).map(function (k) { return {label: k, value: map[k]}; });
  }

  function device(run, dev) {
    var box = document.getElementById(dev.container);
    if (!box) return;
    var scope = {run: run.id, serial: dev.serial};
    var s = dev.series;
    if (s && s.t && s.t.length) {
      var lines = [];
      if (s.sm) lines.push({name: 'SM', metric: 'sm', values: s.sm, color: P.blue});
      if (s.fps) lines.push({name: 'FPS', metric: 'fps', values: s.fps, color: P.orange, dash: true});
      if (lines.length) {
        var refresh = dev.refresh_hz;
        C.line(box, {id: 'sm-fps', title: 'SM and FPS', x: s.t, series: lines, yMin: 0, yAtLeast: refresh || 60,
                     refs: refresh ? [{value: refresh, label: C.fmt(refresh, 1) + ' Hz refresh'}] : [],
                     xLabel: 'time since start (s)', yLabel: 'frames/s', scope: scope});
      }
      if (s.cpu_percent) {
        C.line(box, {id: 'cpu', title: 'App CPU (percent of one core)', x: s.t,
                     series: [{name: 'app CPU', metric: 'cpu_percent', values: s.cpu_percent, color: P.green}],
                     yMin: 0, yAtLeast: 100, xLabel: 'time since start (s)', yLabel: '% of a core', scope: scope});
      }
      var bars = [];
      if (s.skipped_frames) bars.push({name: 'skipped frames', metric: 'skipped_frames', values: s.skipped_frames, color: P.vermillion});
      if (s.janky_frames) bars.push({name: 'janky frames', metric: 'janky_frames', values: s.janky_frames, color: P.sky});
      if (bars.length) {
        C.bars(box, {id: 'skipped-janky', title: 'Skipped and janky frames per ' + C.fmt(s.interval_seconds, 1) + ' s',
                     x: s.t, step: s.interval_seconds, series: bars, xLabel: 'time since start (s)', yLabel: 'frames',
                     scope: scope});
      }
    }
    var causes = entries(dev.jank_causes);
    if (causes.length) {
      C.hbars(box, {id: 'jank-causes', title: 'Jank causes (HWUI)', items: causes, metric: 'jank_causes',
                    color: P.vermillion, xLabel: 'janky frames', scope: scope});
    }
    var types = entries(dev.ft_jank_types);
    if (types.length) {
      C.hbars(box, {id: 'ft-jank-types', title: 'Jank types (FrameTimeline)', items: types, metric: 'ft_jank_types',
                    color: P.purple, xLabel: 'janky frames', scope: scope});
    }
    var hist = dev.frame_duration;
    if (hist && hist.counts.length) {
      C.histogram(box, {id: 'frame-time', title: 'Frame time distribution', unit: 'ms', metric: 'frame_duration_seconds',
                        bounds: hist.bounds.map(function (b) { return b * 1000; }), counts: hist.counts,
                        color: P.blue, xLabel: 'frame time (ms)', yLabel: 'frames', scope: scope});
    }
  }

  function comparison(cmp) {
    cmp.metrics.forEach(function (m) {
      var box = document.getElementById(m.container);
      if (!box) return;
      C.strip(box, {metric: m.metric, unit: m.unit, rows: [
        {name: 'baseline', values: m.baseline, median: m.baseline_median, color: P.blue},
        {name: 'candidate', values: m.candidate, median: m.candidate_median, color: P.orange}]});
    });
  }

  try {
    var data = JSON.parse(document.getElementById('report-data').textContent);
    data.runs.forEach(function (run) {
      run.devices.forEach(function (dev) { device(run, dev); });
    });
    if (data.comparison) comparison(data.comparison);
    document.documentElement.setAttribute('data-render', 'done');
  } catch (e) {
    console.error('report charts failed: ' + String(e));  // reaches a browser's log as well
    window.__noteError(e && e.message ? e.message : e);
  }
})();
