#include "parsers/foreground_app.h"

#include <string>
#include <utility>

#include "parsers/names.h"
#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

constexpr std::size_t kConsoleWidth = 80;
constexpr int kMaxJoinedLines = 8;

bool is_class_char(char c) {
  return scan::is_word_char(c) || c == '.' || c == '$';
}

// "pkg/act" or "pkg/.act" → package and fully qualified activity.
std::optional<ForegroundApp> parse_component(std::string_view comp) {
  std::size_t slash = comp.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view pkg = comp.substr(0, slash);
  std::string_view act = comp.substr(slash + 1);
  if (!valid_package_name(pkg)) return std::nullopt;
  for (char c : act)
    if (!is_class_char(c)) return std::nullopt;
  ForegroundApp app;
  app.package = std::string(pkg);
  if (act.starts_with('.')) app.activity = app.package + std::string(act);
  else app.activity = std::string(act);
  return app;
}

std::optional<std::int32_t> parse_user(std::string_view tok) {
  if (tok.size() < 2 || tok.front() != 'u') return std::nullopt;
  return scan::parse_int<std::int32_t>(tok.substr(1));
}

// Body of "Window{…}" or "ActivityRecord{…}" up to its first '}'.
std::string_view brace_body(std::string_view s, std::string_view opener) {
  std::size_t p = s.find(opener);
  if (p == std::string_view::npos) return {};
  std::string_view body = s.substr(p + opener.size());
  std::size_t close = body.find('}');
  return close == std::string_view::npos ? body : body.substr(0, close);
}

// "<opener>hash [uN] pkg/Act …}": the app of a Window{…} or ActivityRecord{…},
// or nullopt for system windows.
std::optional<ForegroundApp> parse_record(std::string_view s, std::string_view opener) {
  std::string_view body = brace_body(s, opener);
  scan::Tokens toks(body);
  std::string_view hash, tok;
  if (!toks.next(hash) || !toks.next(tok)) return std::nullopt;
  std::optional<std::int32_t> user = parse_user(tok);
  if (user && !toks.next(tok)) return std::nullopt;
  auto app = parse_component(tok);
  if (app) app->user = user;
  return app;
}

// "Window{hash u0 pkg/Act}", "Window{hash u0 pkg/Act type=1 }" (vivo),
// "Window{com.android.systemui:hash u0 StatusBar type=2000 }",
// "Window{hash pkg/Act paused=false}" (no user on old releases).
std::optional<ForegroundApp> parse_window(std::string_view s) { return parse_record(s, "Window{"); }

// "ActivityRecord{hash u0 pkg/.Act t12}" (also inside AppWindowToken{…},
// and with Android 13's stray brace "ActivityRecord{hash u0 pkg/.Act} t12}").
std::optional<ForegroundApp> parse_activity_record(std::string_view s) { return parse_record(s, "ActivityRecord{"); }

int brace_depth(std::string_view s) {
  int d = 0;
  for (char c : s) {
    if (c == '{') ++d;
    else if (c == '}') --d;
  }
  return d;
}

bool is_key_line(std::string_view t) {
  for (std::string_view k : {"mCurrentFocus=", "mFocusedApp=", "topResumedActivity=", "ResumedActivity:",
                             "mResumedActivity:", "mFocusedActivity:", "Window #", "Activities=["})
    if (t.starts_with(k)) return true;
  return false;
}

void keep_first(std::optional<ForegroundApp>& slot, std::optional<ForegroundApp> app, std::string_view source) {
  if (slot || !app) return;
  app->source = std::string(source);
  slot = std::move(app);
}

}  // namespace

std::optional<ForegroundApp> parse_foreground_app(std::string_view text) {
  std::optional<ForegroundApp> focus, top_resumed, resumed, m_resumed, focused_activity, focused_app,
      activity_resumed, activity_first, window_first, real_activity;
  std::optional<ForegroundApp> activity_current;  // last ACTIVITY line, waiting for mResumed=true
  bool system_focus_seen = false;

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  std::string joined;
  while (lines.next(raw)) {
    std::string_view line = scan::strip_trailing_crs(raw);
    std::string_view t = scan::trim(line);
    if (t.empty()) continue;

    if (is_key_line(t) && line.size() == kConsoleWidth && brace_depth(t) > 0) {
      joined.assign(t);
      std::string_view next;
      for (int i = 0; i < kMaxJoinedLines && lines.next(next); ++i) {
        std::string_view part = scan::strip_trailing_crs(next);
        joined.append(part);
        if (part.size() != kConsoleWidth || brace_depth(joined) <= 0) break;
      }
      t = joined;
    }

    if (t.starts_with("mCurrentFocus=")) {
      auto app = parse_window(t);
      if (!app) system_focus_seen = true;  // "null", NotificationShade, StatusBar, …
      keep_first(focus, std::move(app), "mCurrentFocus");
    } else if (t.starts_with("mFocusedApp=")) {
      keep_first(focused_app, parse_activity_record(t), "mFocusedApp");
    } else if (t.starts_with("topResumedActivity=")) {
      keep_first(top_resumed, parse_activity_record(t), "topResumedActivity");
    } else if (t.starts_with("ResumedActivity:")) {
      keep_first(resumed, parse_activity_record(t), "ResumedActivity");
    } else if (t.starts_with("mResumedActivity:")) {
      keep_first(m_resumed, parse_activity_record(t), "mResumedActivity");
    } else if (t.starts_with("mFocusedActivity:")) {
      keep_first(focused_activity, parse_activity_record(t), "mFocusedActivity");
    } else if (t.starts_with("ACTIVITY ")) {
      scan::Tokens toks(t.substr(9));
      std::string_view comp, tok;
      activity_current.reset();
      if (toks.next(comp)) {
        activity_current = parse_component(comp);
        if (activity_current) {
          while (toks.next(tok))
            if (tok.starts_with("pid=")) activity_current->pid = scan::parse_int<std::int32_t>(tok.substr(4));
          keep_first(activity_first, activity_current, "ACTIVITY");
        }
      }
    } else if (t.starts_with("mResumed=true")) {
      keep_first(activity_resumed, activity_current, "ACTIVITY");
    } else if (t.starts_with("Window #")) {
      keep_first(window_first, parse_window(t), "Window #");
    } else if (t.starts_with("realActivity=")) {
      keep_first(real_activity, parse_component(scan::trim(t.substr(13))), "realActivity");
    }
  }

  std::optional<ForegroundApp> result;
  if (focus) return focus;
  for (auto* slot : {&top_resumed, &resumed, &m_resumed, &focused_activity, &focused_app, &activity_resumed,
                     &activity_first, &window_first, &real_activity}) {
    if (*slot) {
      result = std::move(**slot);
      break;
    }
  }
  if (result) result->focus_on_system_window = system_focus_seen;
  return result;
}

}  // namespace jank::parsers
