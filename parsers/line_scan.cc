#include "parsers/line_scan.h"

#include <array>
#include <cstdint>
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

// Bit i set at [c]: trigger word i starts with byte c. A line's bytes are
// tested one table load each, instead of against every word: most bytes
// start none, and the common 'a' and 'h' then cost a second-byte test rather
// than a memcmp. (The loop over every word, memcmp on each first-byte match,
// was a third of the live daemon's CPU at 500 devices: issue 31.)
constexpr std::array<std::uint8_t, 256> kFirstBytes = [] {
  static_assert(kTriggers.size() <= 8);
  std::array<std::uint8_t, 256> t{};
  for (std::size_t i = 0; i < kTriggers.size(); ++i) {
    t[static_cast<unsigned char>(kTriggers[i][0])] |= static_cast<std::uint8_t>(1u << i);
  }
  return t;
}();

bool is_plain(std::string_view line, unsigned flags, std::size_t max_line_bytes) {
  return flags == 0 && !line.empty() && line.front() != '[' && line.size() <= max_line_bytes;
}

}  // namespace

bool line_has_trigger(std::string_view line) {
  const char* end = line.data() + line.size();
  for (const char* p = line.data(); p < end; ++p) {
    unsigned words = kFirstBytes[static_cast<unsigned char>(*p)];
    while (words != 0) {
      const std::string_view w = kTriggers[static_cast<std::size_t>(__builtin_ctz(words))];
      words &= words - 1;
      if (static_cast<std::size_t>(end - p) >= w.size() && p[1] == w[1] && std::memcmp(p, w.data(), w.size()) == 0) {
        return true;
      }
    }
  }
  return false;
}

ScanResult scan_lines_scalar(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor) {
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
    if (is_plain(line, flags, max_line_bytes)) {
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
//   "Skipped "(S,d@6) "Davey!"(D,!@5) "Start proc"(S,c@9) "has died"(h,d@7)
//   "Killing "(K,g@6) "am_proc_"(a,_@7) "am_kill"(a,l@6)
constexpr int kMaxOffset = 9;

// The part of the vector scans that does not depend on the vector width:
// lines are cut at the newline bits of each block, and flagged by the
// trigger and NUL bits before their newline.
template <typename Mask>
class BlockLines {
 public:
  BlockLines(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor)
      : region_(region), max_line_bytes_(max_line_bytes), visitor_(visitor) {}

  void block(std::size_t at, Mask candidates, Mask nul, Mask newlines) {
    // Confirm candidates now: false positives are common enough ("has …d")
    // that sending them to the full parser would cost more than a memcmp.
    Mask triggers = 0;
    const char* end = region_.data() + region_.size();
    while (candidates != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctzll(candidates));
      candidates &= candidates - 1;
      if (trigger_at(region_.data() + at + bit, end)) triggers |= Mask{1} << bit;
    }
    while (newlines != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctzll(newlines));
      const Mask below = (Mask{1} << bit) - 1;
      if ((triggers & below) != 0) flags_ |= kLineTrigger;
      if ((nul & below) != 0) flags_ |= kLineNul;
      triggers &= ~below;
      nul &= ~below;
      finish_line(at + bit);
      newlines &= newlines - 1;
    }
    if (triggers != 0) flags_ |= kLineTrigger;
    if (nul != 0) flags_ |= kLineNul;
  }

  // The rest with the portable loop, from `scanned`, the end of the blocks.
  // A line begun in the blocks keeps the flags they gave it (every trigger
  // word starting there was confirmed), so only its bytes from `scanned` on
  // are looked at: the live daemon scans one line at a time, and rescanning
  // it whole doubled the cost of its scan (issue 31).
  ScanResult finish(std::size_t scanned) {
    if (line_start_ < scanned && scanned < region_.size()) {
      const char* from = region_.data() + scanned;
      const char* end = region_.data() + region_.size();
      const char* nl = static_cast<const char*>(std::memchr(from, '\n', static_cast<std::size_t>(end - from)));
      if (nl == nullptr) nl = end;
      const std::string_view rest(from, static_cast<std::size_t>(nl - from));
      if (line_has_trigger(rest)) flags_ |= kLineTrigger;
      if (std::memchr(rest.data(), '\0', rest.size()) != nullptr) flags_ |= kLineNul;
      finish_line(static_cast<std::size_t>(nl - region_.data()));
    }
    if (line_start_ < region_.size()) {
      ScanResult tail = scan_lines_scalar(region_.substr(line_start_), max_line_bytes_, visitor_);
      result_.plain_lines += tail.plain_lines;
    }
    return result_;
  }

 private:
  void finish_line(std::size_t nl_pos) {
    const std::string_view line = region_.substr(line_start_, nl_pos - line_start_);
    if (is_plain(line, flags_, max_line_bytes_)) {
      ++result_.plain_lines;
    } else {
      visitor_.visit(line, flags_);
    }
    line_start_ = nl_pos + 1;
    flags_ = 0;
  }

  std::string_view region_;
  std::size_t max_line_bytes_;
  LineVisitor& visitor_;
  ScanResult result_;
  std::size_t line_start_ = 0;
  unsigned flags_ = 0;
};

__attribute__((target("avx2"))) ScanResult scan_avx2(std::string_view region, std::size_t max_line_bytes,
                                                     LineVisitor& visitor) {
  BlockLines<std::uint32_t> lines(region, max_line_bytes, visitor);
  const __m256i newline = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
  const __m256i f_S = _mm256_set1_epi8('S'), f_D = _mm256_set1_epi8('D'), f_h = _mm256_set1_epi8('h');
  const __m256i f_K = _mm256_set1_epi8('K'), f_a = _mm256_set1_epi8('a');
  const __m256i l_d = _mm256_set1_epi8('d'), l_bang = _mm256_set1_epi8('!'), l_c = _mm256_set1_epi8('c');
  const __m256i l_g = _mm256_set1_epi8('g'), l_us = _mm256_set1_epi8('_'), l_l = _mm256_set1_epi8('l');
  std::size_t i = 0;
  for (; i + 32 + kMaxOffset <= region.size(); i += 32) {
    const char* p = region.data() + i;
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i b5 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 5));
    const __m256i b6 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 6));
    const __m256i b7 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 7));
    const __m256i b9 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 9));
    const __m256i is_S = _mm256_cmpeq_epi8(a, f_S);
    const __m256i is_a = _mm256_cmpeq_epi8(a, f_a);
    __m256i cand = _mm256_and_si256(is_S, _mm256_cmpeq_epi8(b6, l_d));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_D), _mm256_cmpeq_epi8(b5, l_bang)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_S, _mm256_cmpeq_epi8(b9, l_c)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_h), _mm256_cmpeq_epi8(b7, l_d)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(_mm256_cmpeq_epi8(a, f_K), _mm256_cmpeq_epi8(b6, l_g)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_a, _mm256_cmpeq_epi8(b7, l_us)));
    cand = _mm256_or_si256(cand, _mm256_and_si256(is_a, _mm256_cmpeq_epi8(b6, l_l)));
    lines.block(i, static_cast<std::uint32_t>(_mm256_movemask_epi8(cand)),
                static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero))),
                static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, newline))));
  }
  return lines.finish(i);
}

// The same filter on 64-byte blocks, comparing straight into mask registers.
__attribute__((target("avx512f,avx512bw"))) ScanResult scan_avx512(std::string_view region,
                                                                   std::size_t max_line_bytes, LineVisitor& visitor) {
  BlockLines<std::uint64_t> lines(region, max_line_bytes, visitor);
  const __m512i f_S = _mm512_set1_epi8('S'), f_D = _mm512_set1_epi8('D'), f_h = _mm512_set1_epi8('h');
  const __m512i f_K = _mm512_set1_epi8('K'), f_a = _mm512_set1_epi8('a'), newline = _mm512_set1_epi8('\n');
  const __m512i l_d = _mm512_set1_epi8('d'), l_bang = _mm512_set1_epi8('!'), l_c = _mm512_set1_epi8('c');
  const __m512i l_g = _mm512_set1_epi8('g'), l_us = _mm512_set1_epi8('_'), l_l = _mm512_set1_epi8('l');
  const __m512i zero = _mm512_setzero_si512();
  std::size_t i = 0;
  for (; i + 64 + kMaxOffset <= region.size(); i += 64) {
    const char* p = region.data() + i;
    const __m512i a = _mm512_loadu_si512(p), b5 = _mm512_loadu_si512(p + 5), b6 = _mm512_loadu_si512(p + 6);
    const __m512i b7 = _mm512_loadu_si512(p + 7), b9 = _mm512_loadu_si512(p + 9);
    const std::uint64_t is_S = _mm512_cmpeq_epi8_mask(a, f_S), is_a = _mm512_cmpeq_epi8_mask(a, f_a);
    const std::uint64_t cand =
        (is_S & (_mm512_cmpeq_epi8_mask(b6, l_d) | _mm512_cmpeq_epi8_mask(b9, l_c))) |
        (_mm512_cmpeq_epi8_mask(a, f_D) & _mm512_cmpeq_epi8_mask(b5, l_bang)) |
        (_mm512_cmpeq_epi8_mask(a, f_h) & _mm512_cmpeq_epi8_mask(b7, l_d)) |
        (_mm512_cmpeq_epi8_mask(a, f_K) & _mm512_cmpeq_epi8_mask(b6, l_g)) |
        (is_a & (_mm512_cmpeq_epi8_mask(b7, l_us) | _mm512_cmpeq_epi8_mask(b6, l_l)));
    lines.block(i, cand, _mm512_cmpeq_epi8_mask(a, zero), _mm512_cmpeq_epi8_mask(a, newline));
  }
  return lines.finish(i);
}

}  // namespace
#endif

std::vector<ScanKernel> supported_scan_kernels() {
  std::vector<ScanKernel> out = {ScanKernel::scalar};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) out.push_back(ScanKernel::avx2);
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) out.push_back(ScanKernel::avx512);
#endif
  return out;
}

ScanResult scan_lines_with(ScanKernel kernel, std::string_view region, std::size_t max_line_bytes,
                           LineVisitor& visitor) {
  switch (kernel) {
#if defined(__x86_64__)
    case ScanKernel::avx512: return scan_avx512(region, max_line_bytes, visitor);
    case ScanKernel::avx2: return scan_avx2(region, max_line_bytes, visitor);
#endif
    default: return scan_lines_scalar(region, max_line_bytes, visitor);
  }
}

ScanResult scan_lines(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor) {
  static const ScanKernel best = supported_scan_kernels().back();  // the widest this CPU runs
  return scan_lines_with(best, region, max_line_bytes, visitor);
}

}  // namespace jank::parsers
