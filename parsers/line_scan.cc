#include "parsers/line_scan.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace jank::parsers {
namespace {

struct Trigger {
  std::string_view word;
};

// Keep in sync with the extractors in logcat_events.cc: every message they
// accept contains one of these.
constexpr std::array<std::string_view, 7> kTriggers = {
    "Skipped ", "Davey!", "Start proc", "has died", "Killing ", "am_proc_", "am_kill"};

bool trigger_at(const char* p, const char* end) {
  for (std::string_view w : kTriggers) {
    if (static_cast<std::size_t>(end - p) >= w.size() && p[0] == w[0] &&
        std::memcmp(p, w.data(), w.size()) == 0) {
      return true;
    }
  }
  return false;
}

bool is_plain(std::string_view line, unsigned flags, std::size_t max_line_bytes, bool visit_all) {
  return !visit_all && flags == 0 && !line.empty() && line.front() != '[' && line.size() <= max_line_bytes;
}

}  // namespace

bool line_has_trigger(std::string_view line) {
  const char* end = line.data() + line.size();
  for (const char* p = line.data(); p < end; ++p) {
    if (trigger_at(p, end)) return true;
  }
  return false;
}

ScanResult scan_lines_scalar(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor,
                             bool visit_all) {
  ScanResult result;
  const char* p = region.data();
  const char* end = p + region.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr) nl = end;
    std::string_view line(p, static_cast<std::size_t>(nl - p));
    unsigned flags = 0;
    if (line_has_trigger(line)) flags |= kLineTrigger;
    if (std::memchr(line.data(), '\0', line.size()) != nullptr) flags |= kLineNul;
    if (is_plain(line, flags, max_line_bytes, visit_all)) {
      ++result.plain_lines;
    } else {
      visitor.visit(line, flags);
    }
    p = nl + 1;
  }
  return result;
}

#if defined(__x86_64__)
namespace {

// For each trigger word: its first byte, and its last byte with that byte's
// offset. A block position is a candidate when both match (a cheap filter in
// the style of SIMD substring search); candidates are then confirmed with memcmp.
constexpr int kMaxOffset = 9;

__attribute__((target("avx2"))) ScanResult scan_avx2(std::string_view region, std::size_t max_line_bytes,
                                                     LineVisitor& visitor, bool visit_all) {
  ScanResult result;
  const char* base = region.data();
  const std::size_t n = region.size();
  const char* end = base + n;

  const __m256i newline = _mm256_set1_epi8('\n');
  const __m256i zero = _mm256_setzero_si256();
  const __m256i f_S = _mm256_set1_epi8('S'), f_D = _mm256_set1_epi8('D');
  const __m256i f_h = _mm256_set1_epi8('h'), f_K = _mm256_set1_epi8('K');
  const __m256i f_a = _mm256_set1_epi8('a');
  const __m256i l_d = _mm256_set1_epi8('d'), l_bang = _mm256_set1_epi8('!');
  const __m256i l_c = _mm256_set1_epi8('c'), l_g = _mm256_set1_epi8('g');
  const __m256i l_us = _mm256_set1_epi8('_'), l_l = _mm256_set1_epi8('l');

  std::size_t line_start = 0;
  unsigned line_flags = 0;
  auto finish_line = [&](std::size_t nl_pos) {
    std::string_view line(base + line_start, nl_pos - line_start);
    if (is_plain(line, line_flags, max_line_bytes, visit_all)) {
      ++result.plain_lines;
    } else {
      visitor.visit(line, line_flags);
    }
    line_start = nl_pos + 1;
    line_flags = 0;
  };

  std::size_t i = 0;
  for (; i + 32 + kMaxOffset <= n; i += 32) {
    const char* p = base + i;
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i b5 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 5));
    const __m256i b6 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 6));
    const __m256i b7 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 7));
    const __m256i b9 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 9));
    const __m256i is_S = _mm256_cmpeq_epi8(a, f_S);
    const __m256i is_a = _mm256_cmpeq_epi8(a, f_a);
    // "Skipped "(S,d@6) "Davey!"(D,!@5) "Start proc"(S,c@9) "has died"(h,d@7)
    // "Killing "(K,g@6) "am_proc_"(a,_@7) "am_kill"(a,l@6)
    __m256i cand = _mm256_and_si256(is_S, _mm256_cmpeq_epi8(b6, l_d));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_D), _mm256_cmpeq_epi8(b5, l_bang)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_S, _mm256_cmpeq_epi8(b9, l_c)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_h), _mm256_cmpeq_epi8(b7, l_d)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_K), _mm256_cmpeq_epi8(b6, l_g)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_a, _mm256_cmpeq_epi8(b7, l_us)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_a, _mm256_cmpeq_epi8(b6, l_l)));
    std::uint32_t cand_bits = static_cast<std::uint32_t>(_mm256_movemask_epi8(cand));
    std::uint32_t nul_bits = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)));
    std::uint32_t nl_bits = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, newline)));

    // Confirm candidates now: false positives are common enough ("has …d")
    // that sending them to the full parser would cost more than a memcmp.
    std::uint32_t trig_bits = 0;
    while (cand_bits != 0) {
      unsigned bit = static_cast<unsigned>(__builtin_ctz(cand_bits));
      cand_bits &= cand_bits - 1;
      if (trigger_at(p + bit, end)) trig_bits |= 1u << bit;
    }
    if (nl_bits == 0) {
      if (trig_bits != 0) line_flags |= kLineTrigger;
      if (nul_bits != 0) line_flags |= kLineNul;
      continue;
    }
    while (nl_bits != 0) {
      unsigned bit = static_cast<unsigned>(__builtin_ctz(nl_bits));
      std::uint32_t below = (bit == 31) ? 0x7FFFFFFFu : ((1u << bit) - 1);
      if ((trig_bits & below) != 0) line_flags |= kLineTrigger;
      if ((nul_bits & below) != 0) line_flags |= kLineNul;
      trig_bits &= ~below;
      nul_bits &= ~below;
      finish_line(i + bit);
      nl_bits &= nl_bits - 1;
    }
    if (trig_bits != 0) line_flags |= kLineTrigger;
    if (nul_bits != 0) line_flags |= kLineNul;
  }
  // Tail: finish the current line and the rest with the portable loop. The
  // current line may have started in the vector part, so rescan it whole.
  if (line_start < n) {
    ScanResult tail = scan_lines_scalar(region.substr(line_start), max_line_bytes, visitor, visit_all);
    result.plain_lines += tail.plain_lines;
  }
  return result;
}

bool have_avx2() {
  static const bool supported = __builtin_cpu_supports("avx2");
  return supported;
}

}  // namespace
#endif

ScanResult scan_lines(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor, bool visit_all) {
#if defined(__x86_64__)
  if (have_avx2()) return scan_avx2(region, max_line_bytes, visitor, visit_all);
#endif
  return scan_lines_scalar(region, max_line_bytes, visitor, visit_all);
}

}  // namespace jank::parsers
