// The shell's file tools over the simulated /proc and /sys
// (devsim/procfs.h): mksh's pathname expansion and grep on files, with each
// release's grep (NetBSD's in toolbox up to 10, toybox's from 11), its
// messages, exit status and stdout buffering. docs/devsim.md, "Shell".
#include <algorithm>
#include <cerrno>

#include "devsim/shell.h"

namespace jank::devsim {
namespace {

bool active(std::string_view unquoted, std::size_t i) { return i < unquoted.size() && unquoted[i] == '1'; }

// A bracket expression at p[at] ('['): whether `c` matches it and where it
// ends (npos: no closing ']', so the '[' is an ordinary character).
bool bracket(std::string_view p, std::string_view unq, std::size_t at, char c, std::size_t* end) {
  std::size_t j = at + 1;
  bool negate = false;
  if (j < p.size() && active(unq, j) && (p[j] == '!' || p[j] == '^')) negate = true, ++j;
  bool hit = false;
  bool first = true;
  for (; j < p.size(); ++j) {
    if (p[j] == ']' && active(unq, j) && !first) {
      *end = j + 1;
      return hit != negate;
    }
    first = false;
    if (j + 2 < p.size() && p[j + 1] == '-' && active(unq, j + 1) && !(p[j + 2] == ']' && active(unq, j + 2))) {
      const auto lo = static_cast<unsigned char>(p[j]), hi = static_cast<unsigned char>(p[j + 2]);
      const auto x = static_cast<unsigned char>(c);
      hit = hit || (x >= lo && x <= hi);
      j += 2;
      continue;
    }
    hit = hit || p[j] == c;
  }
  *end = std::string_view::npos;
  return false;
}

// The component has a pattern character mksh expands (has_globbing).
bool has_glob(std::string_view p, std::string_view unq) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!active(unq, i)) continue;
    if (p[i] == '*' || p[i] == '?') return true;
    std::size_t end = 0;
    if (p[i] == '[') {
      bracket(p, unq, i, '\0', &end);
      if (end != std::string_view::npos) return true;
    }
  }
  return false;
}

// fnmatch of one name against one component (gmatchx).
bool glob_match(std::string_view s, std::string_view p, std::string_view unq) {
  std::size_t si = 0, pi = 0, star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size()) {
      const bool a = active(unq, pi);
      if (a && p[pi] == '*') {
        star_p = ++pi;
        star_s = si;
        continue;
      }
      if (a && p[pi] == '?') {
        ++pi, ++si;
        continue;
      }
      std::size_t end = std::string_view::npos;
      const bool hit = a && p[pi] == '[' && bracket(p, unq, pi, s[si], &end);
      if (end != std::string_view::npos) {
        if (hit) {
          pi = end, ++si;
          continue;
        }
      } else if (p[pi] == s[si]) {
        ++pi, ++si;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && active(unq, pi) && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

std::vector<std::string> expand_glob(Device& dev, const std::string& word, const std::string& unquoted) {
  if (!has_glob(word, unquoted)) return {word};
  // Components with their quoting; the shell's working directory is / (adbd's).
  const bool absolute = !word.empty() && word[0] == '/';
  std::vector<std::pair<std::string_view, std::string_view>> comps;
  const std::string_view w(word), u(unquoted);
  for (std::size_t i = 0; i <= w.size();) {
    const std::size_t slash = std::min(w.find('/', i), w.size());
    if (slash > i) comps.emplace_back(w.substr(i, slash - i), u.substr(std::min(i, u.size()), slash - i));
    i = slash + 1;
  }
  struct Partial {
    std::string path;
    bool check = false;  // GF_EXCHECK: a pattern came before a literal component
  };
  auto join = [absolute](const std::string& path, std::string_view name) {
    return absolute || !path.empty() ? path + "/" + std::string(name) : std::string(name);
  };
  auto fs_path = [absolute](const std::string& path) { return absolute ? (path.empty() ? "/" : path) : "/" + path; };
  std::vector<Partial> cur = {Partial{}};
  for (std::size_t c = 0; c < comps.size() && !cur.empty(); ++c) {
    const auto [comp, unq] = comps[c];
    std::vector<Partial> next;
    for (const Partial& p : cur) {
      if (!has_glob(comp, unq)) {
        next.push_back({join(p.path, comp), p.check});
        continue;
      }
      const auto entries = fs_list(dev, fs_path(p.path));
      if (!entries) continue;  // opendir failed: no match here
      for (const std::string& name : *entries) {
        if (name == "." || name == ".." || (name[0] == '.' && comp[0] != '.')) continue;
        if (glob_match(name, comp, unq)) next.push_back({join(p.path, name), c + 1 < comps.size()});
      }
    }
    cur = std::move(next);
  }
  std::vector<std::string> out;
  for (const Partial& p : cur) {
    if (!p.check || fs_stat(dev, fs_path(p.path))) out.push_back(p.path);
  }
  if (out.empty()) return {word};
  std::sort(out.begin(), out.end());  // xstrcmp: strcmp's byte order
  return out;
}

namespace {

// How a grep's stdout reaches its file when it is not a terminal, and so
// where its stderr (unbuffered: bionic's stderr is __SNBF, libc/stdio/
// stdio.cpp @ android-10.0.0_r1) lands among it under 2>&1:
//  - line: each line as it is printed (a terminal; toybox from 0.8.5,
//    whose grep is TOYFLAG_LINEBUF: commit 4e47b8e5, 2020-12-11; NetBSD's
//    --line-buffered, grep.c:682-683 @ android-5.0.0_r1);
//  - block: bionic's full buffering, flushed whenever st_blksize bytes
//    (4096 for a pipe or socket) are held (upstream-openbsd makebuf.c
//    __swhatbuf, fvwrite.c): NetBSD grep (util.c printline, stdio) and
//    toybox 0.8.3 (xputsl is fwrite, 0.8.3 lib/xwrap.c:160-168; the Android
//    11 tree is LineageOS/android_external_toybox lineage-18.1);
//  - lagging_newline: toybox 0.8.4 flushes before it writes each line
//    (xputsl: xflush(1) then xwrite, 0.8.4 lib/xwrap.c:160-164) and buffers
//    the newline after it (xputc), so that newline comes after an error.
enum class Buffering : std::uint8_t { line, block, lagging_newline };

Buffering grep_buffering(int sdk, bool tty, bool line_buffered) {
  if (tty) return Buffering::line;
  if (sdk <= 29) return line_buffered ? Buffering::line : Buffering::block;  // toolbox's NetBSD grep
  if (sdk == 30) return Buffering::block;                                    // toybox 0.8.3: --line-buffered ignored
  if (sdk <= 32) return Buffering::lagging_newline;                          // toybox 0.8.4 (README: "0.8.4-ish")
  return Buffering::line;                                                    // toybox 0.8.6+
}

// The lines of `text` any pattern selects, each printed with `prefix`.
std::size_t grep_text(std::string_view text, const std::vector<std::string>& patterns, bool fixed,
                      const std::string& prefix, std::string& out) {
  std::size_t matched = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    const std::string_view line = text.substr(at, end - at);
    for (const auto& p : patterns) {
      // "^TEXT": the line starts with TEXT (the one regular expression form
      // simulated); else, and always with -F, TEXT anywhere in the line.
      const bool anchored = !fixed && !p.empty() && p[0] == '^';
      const bool hit = anchored ? line.substr(0, p.size() - 1) == std::string_view(p).substr(1)
                                : line.find(p) != std::string_view::npos;
      if (!hit) continue;
      out += prefix;
      out.append(line);
      out += '\n';
      ++matched;
      break;
    }
    at = end + 1;
  }
  return matched;
}

}  // namespace

// grep as Android's: NetBSD's from toolbox up to 10 (core
// toolbox/upstream-netbsd/usr.bin/grep, shell_and_utilities/README.md),
// toybox's from 11. Patterns are fixed strings or ^-anchored fixed strings
// (docs/devsim.md). With files: "PATH:" before each line when -H or more
// than one file (not with -h); a file that cannot be read: "grep: PATH:
// strerror" on stderr (none with -s) and the next file. Status: NetBSD
// exits 2 only when a file was missing (ENOENT sets notfound: util.c:214-218,
// grep.c:706 @ android-5.0.0_r1), whatever matched; toybox exits 2 when a
// file could not be opened (TT.tried short of the files: grep.c:466,501 @
// 0.8.3), else 0 on a match, 1 without.
int run_grep(Device& dev, const std::vector<std::string>& w, const std::string* input, bool tty, ShellResult& r) {
  const int sdk = dev.config().sdk;
  bool force_name = false, no_name = false, fixed = false, silent = false, line_buffered = false, options = true;
  bool have_e = false;
  std::vector<std::string> patterns, files;
  for (std::size_t i = 1; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (options && a == "--") {
      options = false;
      continue;
    }
    if (options && a == "--line-buffered") {
      line_buffered = true;
      continue;
    }
    if (options && a.size() > 1 && a[0] == '-') {
      for (std::size_t j = 1; j < a.size(); ++j) {
        const char c = a[j];
        if (c == 'H') {
          force_name = true;
        } else if (c == 'h') {
          no_name = true;
        } else if (c == 'F') {
          fixed = true;
        } else if (c == 's') {
          silent = true;
        } else if (c == 'e') {
          if (j + 1 < a.size()) {
            patterns.push_back(a.substr(j + 1));
          } else if (i + 1 < w.size()) {
            patterns.push_back(w[++i]);
          } else {
            r.err += "grep: option requires an argument -- 'e'\n";
            return 2;
          }
          have_e = true;
          break;
        } else {
          r.err += "grep: option not simulated: " + a + "\n";
          return 2;
        }
      }
      continue;
    }
    if (!have_e && patterns.empty()) {
      patterns.push_back(a);
    } else {
      files.push_back(a);
    }
  }
  if (patterns.empty()) {
    r.err += "grep: no REGEX\n";
    return 2;
  }
  if (files.empty()) {
    // A pipe's input (NetBSD grep: stdin implies --line-buffered).
    const std::size_t matched = grep_text(input ? *input : std::string(), patterns, fixed,
                                          force_name && !no_name ? "(standard input):" : "", r.out);
    return matched > 0 ? 0 : 1;
  }
  const bool show = !no_name && (force_name || files.size() > 1);
  const Buffering buffering = grep_buffering(sdk, tty, line_buffered);
  std::string out;
  std::size_t matched = 0;
  bool notfound = false, unopened = false;
  for (const std::string& f : files) {
    const FsRead got = fs_read(dev, f);
    if (got.err == 0) {
      matched += grep_text(got.data, patterns, fixed, show ? f + ":" : std::string(), out);
      continue;
    }
    if (!silent) {
      std::size_t at = out.size();
      if (buffering == Buffering::block) at = at / 4096 * 4096;
      if (buffering == Buffering::lagging_newline && at > 0) --at;
      r.err_at.emplace_back(at, "grep: " + f + ": " + std::string(fs_error_text(got.err)) + "\n");
    }
    notfound = notfound || got.err == ENOENT;
    // EBUSY and EISDIR come from read() after a successful open.
    unopened = unopened || got.err == ENOENT || got.err == EACCES;
  }
  r.out += out;
  if (sdk <= 29) return notfound ? 2 : matched > 0 ? 0 : 1;
  return unopened ? 2 : matched > 0 ? 0 : 1;
}

}  // namespace jank::devsim
