#include "parsers/display_info.h"

#include <algorithm>
#include <utility>

#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::parsers {

namespace {

using scan::after_key;
using scan::leading_double;
using scan::leading_int;

// Real dumps list at most a few dozen modes; the caps only bound memory on
// hostile input.
constexpr std::size_t kMaxModes = 256;
constexpr std::size_t kMaxBlocks = 32;
constexpr std::size_t kMaxModeTimes = 32;

bool valid_hz(double hz) { return hz > 1.0 && hz <= 1000.0; }

std::optional<double> hz_from_period(std::int64_t ns) {
  if (ns <= 0) return std::nullopt;
  double hz = units::rate_of_period_ns(ns);
  if (!valid_hz(hz)) return std::nullopt;
  return hz;
}

std::optional<std::int32_t> int_after(std::string_view s, std::string_view key) {
  auto v = after_key(s, key);
  if (!v) return std::nullopt;
  return leading_int<std::int32_t>(*v);
}

std::optional<double> double_after(std::string_view s, std::string_view key) {
  auto v = after_key(s, key);
  if (!v) return std::nullopt;
  return leading_double(scan::trim(*v));
}

// One mode printed as "{id=1, width=…, height=…, fps=60.000004, …}" (Display.Mode),
// "DisplayMode{id=0, …, refreshRate=57.999996, …}" / "peakRefreshRate=…"
// (SurfaceFlinger modes as seen by DisplayManager), or SurfaceFlinger's own
// "{id=0, hwcId=0, resolution=480x800, refreshRate=58.00 Hz, …}" and
// "{id=0, hwcId=0, fps=60.00, width=2560, height=1600 group=-1}".
// `body` starts right after the opening brace.
std::optional<DisplayModeRate> parse_mode(std::string_view body) {
  std::size_t close = body.find('}');
  if (close != std::string_view::npos) body = body.substr(0, close);
  DisplayModeRate m;
  auto id = leading_int<std::int32_t>(body.starts_with("id=") ? body.substr(3) : std::string_view{});
  if (!id) id = int_after(body, "id=");
  if (!id) return std::nullopt;
  m.id = *id;
  if (auto w = int_after(body, "width=")) m.width = *w;
  if (auto h = int_after(body, "height=")) m.height = *h;
  if (auto res = after_key(body, "resolution=")) {
    std::size_t used = 0;
    if (auto w = leading_int<std::int32_t>(*res, &used); w && used < res->size() && (*res)[used] == 'x') {
      if (auto h = leading_int<std::int32_t>(res->substr(used + 1))) {
        m.width = *w;
        m.height = *h;
      }
    }
  }
  // Android 15 prints peakRefreshRate (the panel's rate) and vsyncRate; older
  // releases refreshRate; Display.Mode prints fps (= peak rate).
  std::optional<double> hz = double_after(body, "peakRefreshRate=");
  if (!hz) hz = double_after(body, "refreshRate=");
  if (!hz) hz = double_after(body, "fps=");
  if (!hz) hz = double_after(body, "vsyncRate=");
  if (!hz || !valid_hz(*hz)) return std::nullopt;
  m.hz = *hz;
  return m;
}

// Every "{id=" mode in `s` (a "[{…}, {…}]" list on one line). Modes do not
// nest, so the scan resumes after each closing brace: linear on any input.
void collect_modes(std::string_view s, std::vector<DisplayModeRate>& out) {
  std::size_t pos = 0;
  while (out.size() < kMaxModes) {
    std::size_t p = s.find("{id=", pos);
    if (p == std::string_view::npos) return;
    std::size_t close = s.find('}', p);
    if (close == std::string_view::npos) return;
    if (auto m = parse_mode(s.substr(p + 1, close - p - 1))) out.push_back(*m);
    pos = close + 1;
  }
}

const DisplayModeRate* find_mode(const std::vector<DisplayModeRate>& modes, std::int32_t id) {
  for (const auto& m : modes)
    if (m.id == id) return &m;
  return nullptr;
}

// Old layouts print the rate as ", 60.0 fps," inside DisplayDeviceInfo,
// DisplayInfo and PhysicalDisplayInfo.
std::optional<double> inline_fps(std::string_view line) {
  std::size_t pos = 0;
  while (true) {
    std::size_t p = line.find(" fps", pos);
    if (p == std::string_view::npos) return std::nullopt;
    std::size_t b = p;
    while (b > 0 && (scan::is_digit(line[b - 1]) || line[b - 1] == '.')) --b;
    if (b < p && b > 0 && (line[b - 1] == ' ' || line[b - 1] == '{')) {
      std::size_t after = p + 4;
      if (after >= line.size() || line[after] == ',' || line[after] == '}') {
        if (auto v = leading_double(line.substr(b, p - b)); v && valid_hz(*v)) return v;
      }
    }
    pos = p + 1;
  }
}

void finish_peak(RefreshInfo& info) {
  for (const auto& m : info.modes)
    if (!info.peak_hz || m.hz > *info.peak_hz) info.peak_hz = m.hz;
}

RefreshRate make_rate(double hz, std::string_view source) {
  RefreshRate r;
  r.hz = hz;
  r.source = std::string(source);
  return r;
}

}  // namespace

// ---- dumpsys display --------------------------------------------------------

RefreshInfo parse_display_info(std::string_view text) {
  struct Mode {
    std::optional<std::int32_t> id;
    std::optional<double> fps;  // old inline "60.0 fps"
    std::vector<DisplayModeRate> modes;
    bool seen = false;
  };
  int device_no = 0;                               // DisplayDeviceInfo{ headers seen
  std::optional<DisplayModeRate> sf_active;        // mActiveSfDisplayMode
  std::optional<std::int32_t> active_mode_id;      // mActiveModeId
  std::vector<DisplayModeRate> records;            // mSupportedModes DisplayModeRecord list
  std::vector<DisplayModeRate> sf_modes;           // mSfDisplayModes DisplayMode list
  std::vector<DisplayModeRate> by_display;         // DisplayModeDirector "0 -> [ … ]"
  Mode ddi;                                        // first DisplayDeviceInfo line
  Mode di;                                         // first DisplayInfo of displayId 0
  std::optional<double> render;

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view t = scan::trim(raw);
    if (t.empty()) continue;
    const bool first_scope = device_no <= 1;

    if (t.starts_with("DisplayDeviceInfo{")) {
      ++device_no;
      if (device_no == 1) {
        ddi.seen = true;
        ddi.id = int_after(t, "modeId ");
        ddi.fps = inline_fps(t);
        if (auto sm = after_key(t, "supportedModes [")) collect_modes(*sm, ddi.modes);
        if (!render) render = double_after(t, "renderFrameRate ");
      }
      continue;
    }
    if (first_scope) {
      if (auto v = after_key(t, "mActiveModeId="); v && !active_mode_id) {
        active_mode_id = leading_int<std::int32_t>(*v);
        continue;
      }
      if (t.starts_with("mActiveSfDisplayMode=DisplayMode{")) {
        if (!sf_active) sf_active = parse_mode(t.substr(t.find('{') + 1));
        continue;
      }
      if (t.starts_with("DisplayModeRecord{mMode={")) {
        if (records.size() < kMaxModes)
          if (auto m = parse_mode(t.substr(25))) records.push_back(*m);
        continue;
      }
      if (t.starts_with("DisplayMode{")) {
        if (sf_modes.size() < kMaxModes)
          if (auto m = parse_mode(t.substr(12))) sf_modes.push_back(*m);
        continue;
      }
      if (!render) {
        if (auto v = double_after(t, "mActiveRenderFrameRate=")) render = v;
        else if (t.starts_with("renderFrameRate ")) render = leading_double(scan::trim(t.substr(16)));
      }
      if (t.starts_with("mPhys=PhysicalDisplayInfo{") && !ddi.fps) ddi.fps = inline_fps(t);
    }
    // DisplayModeDirector: "mSupportedModesByDisplay: 0 -> [...]" or the
    // entries on their own lines below the key.
    if (by_display.empty()) {
      std::string_view rest = t;
      if (rest.starts_with("mSupportedModesByDisplay:")) rest = scan::trim(rest.substr(25));
      if (rest.starts_with("0 -> [")) {
        collect_modes(rest, by_display);
        continue;
      }
    }
    // DisplayInfo of the default display (mBaseDisplayInfo comes before
    // mOverrideDisplayInfo, and only the base one is the device's state).
    if (!di.seen && t.find("DisplayInfo{") != std::string_view::npos &&
        t.find("PhysicalDisplayInfo{") == std::string_view::npos) {
      auto disp = int_after(t, "displayId ");
      if (disp && *disp == 0) {
        di.seen = true;
        if (auto ms = after_key(t, "modes [")) collect_modes(*ms, di.modes);
        di.fps = inline_fps(t);
        // "mode 2," normally; Android 14 glues the render rate to the id
        // ("mode 390.0" = mode 3 at 90.0): split where the id is a listed mode.
        if (auto mv = after_key(t, "mode ")) {
          std::string_view tok = mv->substr(0, mv->find(','));
          if (tok.find('.') == std::string_view::npos) {
            di.id = scan::parse_int<std::int32_t>(tok);
          } else {
            std::size_t int_len = 0;
            while (int_len < tok.size() && scan::is_digit(tok[int_len])) ++int_len;
            // Mode ids are int32: at most 10 digits to try.
            for (std::size_t k = 1; k < int_len && k <= 10; ++k) {
              auto id = scan::parse_int<std::int32_t>(tok.substr(0, k));
              std::size_t used = 0;
              auto rate = leading_double(tok.substr(k), &used);
              if (!id || !rate || used != tok.size() - k || !valid_hz(*rate)) continue;
              const DisplayModeRate* m = find_mode(di.modes, *id);
              if (m == nullptr || *rate > m->hz * 1.001) continue;
              di.id = id;
              if (!render) render = rate;
              break;
            }
          }
        }
      }
    }
  }

  RefreshInfo info;
  // Modes: the device's own list first, then the copies other sections print.
  for (auto* list : {&records, &ddi.modes, &di.modes, &by_display, &sf_modes}) {
    if (!list->empty()) {
      info.modes = std::move(*list);
      if (list == &records) info.modes_source = "mSupportedModes";
      else if (list == &ddi.modes) info.modes_source = "DisplayDeviceInfo";
      else if (list == &di.modes) info.modes_source = "DisplayInfo";
      else if (list == &by_display) info.modes_source = "mSupportedModesByDisplay";
      else info.modes_source = "mSfDisplayModes";
      break;
    }
  }
  // The moved-from lists are empty now; look modes up in info.modes or in
  // the list that is still intact.
  auto lookup = [&](const std::vector<DisplayModeRate>& own, std::string_view own_source,
                    std::int32_t id) -> const DisplayModeRate* {
    if (info.modes_source == own_source) return find_mode(info.modes, id);
    return find_mode(own, id);
  };

  if (sf_active && valid_hz(sf_active->hz)) {
    info.active = make_rate(sf_active->hz, "mActiveSfDisplayMode");
    info.active->mode_id = active_mode_id;
  } else if (const DisplayModeRate* m = active_mode_id ? lookup(records, "mSupportedModes", *active_mode_id) : nullptr) {
    info.active = make_rate(m->hz, "mActiveModeId");
    info.active->mode_id = active_mode_id;
  } else if (const DisplayModeRate* d = ddi.id ? lookup(ddi.modes, "DisplayDeviceInfo", *ddi.id) : nullptr) {
    info.active = make_rate(d->hz, "DisplayDeviceInfo");
    info.active->mode_id = ddi.id;
  } else if (ddi.fps) {
    info.active = make_rate(*ddi.fps, "DisplayDeviceInfo");
  } else if (const DisplayModeRate* i = di.id ? lookup(di.modes, "DisplayInfo", *di.id) : nullptr) {
    info.active = make_rate(i->hz, "DisplayInfo");
    info.active->mode_id = di.id;
  } else if (di.fps) {
    info.active = make_rate(*di.fps, "DisplayInfo");
  } else if (info.modes.size() == 1) {
    // A display with a single mode can only be in that mode.
    info.active = make_rate(info.modes.front().hz, "single mode");
    info.active->mode_id = info.modes.front().id;
  }
  if (render && valid_hz(*render)) info.render_hz = render;
  finish_peak(info);
  return info;
}

std::optional<RefreshRate> parse_display_refresh_rate(std::string_view text) {
  return parse_display_info(text).active;
}

// ---- dumpsys SurfaceFlinger -------------------------------------------------

RefreshInfo parse_surfaceflinger_info(std::string_view text) {
  struct Block {
    int score = 0;
    std::optional<double> active_hz;
    std::optional<double> render_hz;
    std::optional<std::int32_t> active_id;
    std::vector<DisplayModeRate> modes;
  };
  std::optional<std::int64_t> vsync_period, dispsync_period, mperiod, vendor_period;
  std::optional<double> current_mode, refresh_rate_line;
  std::vector<double> mode_times;  // distinct rates of the "60.00 Hz: 0d…" time-in-mode lines
  std::vector<DisplayModeRate> loose_modes;  // Android 12 "Refresh rates:" list
  std::vector<Block> blocks;
  bool in_block = false;

  auto period_after = [](std::string_view line, std::string_view key) -> std::optional<std::int64_t> {
    std::size_t p = line.find(key);
    if (p == std::string_view::npos) return std::nullopt;
    std::string_view rest = scan::trim(line.substr(p + key.size()));
    std::size_t used = 0;
    auto v = leading_int<std::int64_t>(rest, &used);
    if (!v || *v <= 0) return std::nullopt;
    return v;
  };

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = scan::strip_trailing_crs(raw);
    std::string_view t = scan::trim(line);
    if (t.empty()) continue;
    const bool col0 = !scan::is_inline_space(line.front());

    if (col0) {
      in_block = false;
      // "Display 0 (internal, primary, …)" (13, also `--displays`) or
      // "Display 4630946694713414275" (14+) opens a display block; the other
      // "Display …" headers (color modes, HWC layers, identification) end
      // with ':' or carry "): " and are not blocks.
      // Android 11/12 print "+ DisplayDevice{<id>, internal, primary, "name"}".
      const bool display_header = t.starts_with("Display ") && scan::is_digit(t.size() > 8 ? t[8] : ' ') &&
                                  t.back() != ':' && t.find("): ") == std::string_view::npos;
      if ((display_header || t.starts_with("+ DisplayDevice{")) && blocks.size() < kMaxBlocks) {
        Block b;
        if (t.find("primary,") != std::string_view::npos || t.find("primary)") != std::string_view::npos)
          b.score += 2;
        blocks.push_back(std::move(b));
        in_block = true;
        continue;
      }
      // Time-in-mode lines: "60fps: 0d…", "60.00fps: 0d…", "58.00 Hz: 0d…".
      std::size_t used = 0;
      if (auto hz = leading_double(t, &used)) {
        std::string_view rest = t.substr(used);
        if ((rest.starts_with("fps: ") || rest.starts_with(" Hz: ")) && valid_hz(*hz)) {
          rest = rest.substr(rest.find(':') + 2);
          std::size_t d = 0;
          while (d < rest.size() && scan::is_digit(rest[d])) ++d;
          if (d > 0 && d < rest.size() && rest[d] == 'd' &&
              std::find(mode_times.begin(), mode_times.end(), *hz) == mode_times.end() &&
              mode_times.size() < kMaxModeTimes)
            mode_times.push_back(*hz);
          continue;
        }
      }
    }

    if (in_block && !blocks.empty()) {
      Block& b = blocks.back();
      if (t == "connectionType=Internal") {
        b.score += 1;
        continue;
      }
      if (auto v = after_key(t, "activeMode="); v && t.starts_with("activeMode=")) {
        if (v->starts_with("{")) {
          if (auto m = parse_mode(v->substr(1))) {
            b.active_hz = m->hz;
            b.active_id = m->id;
          }
        } else {
          std::size_t used = 0;
          if (auto hz = leading_double(*v, &used); hz && valid_hz(*hz)) b.active_hz = hz;
          // "60.00 Hz (60.00 Hz)": the parenthesised rate is the render rate.
          std::size_t paren = v->find('(');
          if (paren != std::string_view::npos)
            if (auto r = leading_double(v->substr(paren + 1)); r && valid_hz(*r)) b.render_hz = r;
        }
        continue;
      }
      if (t.starts_with("activeModeId=")) {
        b.active_id = leading_int<std::int32_t>(t.substr(13));
        continue;
      }
      if (t.starts_with("{id=")) {
        if (b.modes.size() < kMaxModes)
          if (auto m = parse_mode(t.substr(1))) b.modes.push_back(*m);
        continue;
      }
      // Anything else falls through: global lines may follow a block header
      // that was not a mode block (e.g. a composition dump).
    }

    if (!vsync_period && t.find("VSYNC period:") != std::string_view::npos) {
      vsync_period = period_after(t, "VSYNC period:");
      continue;
    }
    if (!dispsync_period && t.starts_with("DispSync configuration:")) {
      dispsync_period = period_after(t, "(refresh ");
      continue;
    }
    if (!mperiod && t.starts_with("mPeriod:")) {
      mperiod = period_after(t, "mPeriod:");
      continue;
    }
    if (!current_mode && t.starts_with("Current mode:")) {
      std::size_t brace = t.find('{');
      if (brace != std::string_view::npos)
        if (auto m = parse_mode(t.substr(brace + 1))) current_mode = m->hz;
      continue;
    }
    if (!refresh_rate_line && t.starts_with("refresh-rate")) {
      std::size_t colon = t.find(':');
      if (colon != std::string_view::npos)
        if (auto hz = leading_double(scan::trim(t.substr(colon + 1))); hz && valid_hz(*hz))
          refresh_rate_line = hz;
      continue;
    }
    // Vendor HWC lines: "res: 1920x720 dpi: … fps: 60 vsync period: 16666666".
    if (!vendor_period && t.find("fps: ") != std::string_view::npos) {
      if (auto p = period_after(t, "vsync period: ")) vendor_period = p;
      continue;
    }
    if (t.starts_with("{id=") && loose_modes.size() < kMaxModes)
      if (auto m = parse_mode(t.substr(1))) loose_modes.push_back(*m);
  }

  // The primary display's block: highest score, first on ties, and only
  // blocks that say something about modes count.
  const Block* chosen = nullptr;
  for (const auto& b : blocks) {
    if (!b.active_hz && !b.active_id && b.modes.empty()) continue;
    if (chosen == nullptr || b.score > chosen->score) chosen = &b;
  }

  RefreshInfo info;
  std::optional<double> block_hz;
  std::string_view block_source;
  if (chosen != nullptr) {
    info.modes = chosen->modes;
    info.modes_source = "displayModes";
    info.render_hz = chosen->render_hz;
    if (chosen->active_hz) {
      block_hz = chosen->active_hz;
      block_source = "activeMode";
    } else if (chosen->active_id) {
      if (const DisplayModeRate* m = find_mode(chosen->modes, *chosen->active_id)) {
        block_hz = m->hz;
        block_source = "activeModeId";
      }
    }
  }
  if (info.modes.empty() && !loose_modes.empty()) {
    info.modes = std::move(loose_modes);
    info.modes_source = "Refresh rates";
  }

  auto from_period = [&](std::optional<std::int64_t> p, std::string_view source) {
    if (info.active || !p) return;
    if (auto hz = hz_from_period(*p)) {
      info.active = make_rate(*hz, source);
      info.active->period_ns = p;
    }
  };
  // The global vsync period is the primary display's hardware period and is
  // more precise than the two-decimal mode rates, so it comes first.
  from_period(vsync_period, "VSYNC period");
  from_period(dispsync_period, "DispSync refresh");
  from_period(mperiod, "mPeriod");
  if (!info.active && block_hz) info.active = make_rate(*block_hz, block_source);
  if (!info.active && current_mode) info.active = make_rate(*current_mode, "Current mode");
  if (!info.active && refresh_rate_line) info.active = make_rate(*refresh_rate_line, "refresh-rate");
  from_period(vendor_period, "vendor vsync period");
  // Time-in-mode counters only say which rates were used; a single one means
  // the display never left it.
  if (!info.active && mode_times.size() == 1) info.active = make_rate(mode_times.front(), "mode time");
  if (info.active && chosen != nullptr && chosen->active_id) info.active->mode_id = chosen->active_id;
  finish_peak(info);
  return info;
}

std::optional<RefreshRate> parse_surfaceflinger_refresh_rate(std::string_view text) {
  return parse_surfaceflinger_info(text).active;
}

}  // namespace jank::parsers
