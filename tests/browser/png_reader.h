// Enough of PNG to look at Chromium's screenshots: 8-bit RGB or RGBA, not
// interlaced, inflated with zlib and unfiltered. Returns "" or what it could
// not read.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace jank::test {

struct Image {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes a pixel, row after row

  std::uint32_t pixel(std::size_t x, std::size_t y) const {
    const std::size_t i = (y * width + x) * 3;
    return (std::uint32_t{rgb[i]} << 16) | (std::uint32_t{rgb[i + 1]} << 8) | rgb[i + 2];
  }
};

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t{static_cast<std::uint8_t>(s[at])} << 24) | (std::uint32_t{static_cast<std::uint8_t>(s[at + 1])} << 16) |
         (std::uint32_t{static_cast<std::uint8_t>(s[at + 2])} << 8) | std::uint32_t{static_cast<std::uint8_t>(s[at + 3])};
}

inline int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

inline std::string decode_png(const std::string& file, Image& image) {
  if (file.size() < 8 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return "not a PNG";
  std::string idat;
  int channels = 0;
  for (std::size_t at = 8; at + 12 <= file.size();) {
    const std::uint32_t length = be32(file, at);
    if (at + 12 + length > file.size()) return "truncated chunk";
    const std::string type = file.substr(at + 4, 4);
    if (type == "IHDR") {
      image.width = be32(file, at + 8);
      image.height = be32(file, at + 12);
      const int depth = static_cast<std::uint8_t>(file[at + 16]);
      const int colour = static_cast<std::uint8_t>(file[at + 17]);
      const int interlace = static_cast<std::uint8_t>(file[at + 20]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) return "unsupported PNG layout";
      channels = colour == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat.append(file, at + 8, length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (channels == 0 || image.width == 0 || image.height == 0 || image.width > 20000 || image.height > 20000) {
    return "no image header";
  }
  const std::size_t stride = std::size_t{image.width} * static_cast<std::size_t>(channels);
  std::vector<std::uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) != Z_OK ||
      raw_size != raw.size()) {
    return "image data does not inflate";
  }
  std::vector<std::uint8_t> prev(stride, 0), row(stride);
  image.rgb.resize(std::size_t{image.width} * image.height * 3);
  for (std::size_t y = 0; y < image.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<std::size_t>(channels) ? row[i - static_cast<std::size_t>(channels)] : 0;
      const int b = prev[i];
      const int c = i >= static_cast<std::size_t>(channels) ? prev[i - static_cast<std::size_t>(channels)] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: predictor = 0; break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: predictor = paeth(a, b, c); break;
        default: return "bad filter type";
      }
      row[i] = static_cast<std::uint8_t>((in[i] + predictor) & 0xff);
    }
    for (std::size_t x = 0; x < image.width; ++x) {
      for (std::size_t k = 0; k < 3; ++k) {
        image.rgb[(y * image.width + x) * 3 + k] = row[x * static_cast<std::size_t>(channels) + k];
      }
    }
    prev.swap(row);
  }
  return "";
}

}  // namespace jank::test
