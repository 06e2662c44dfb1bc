// Writes a synthetic `logcat -v threadtime` stream for the replay benchmark:
// realistic background traffic (varied tags, long lines, stack traces, Davey
// frames, decoys that must not count) with about one Choreographer skip line
// in 200. Deterministic for a given seed. Prints the ground truth to stderr.
//
//   jank_gen_logcat LINES SEED > file     (stderr: skip_lines=… skipped_frames=… davey_lines=…)
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace {

const char* const kTags[] = {"ActivityManager", "WindowManager", "InputDispatcher", "chatty",
                             "BufferQueueProducer", "SurfaceFlinger", "NetworkController",
                             "okhttp.OkHttpClient", "ReactNativeJS", "Adreno-GSL", "libc",
                             "AudioFlinger", "wpa_supplicant", "ConnectivityService"};
const char* const kWords[] = {"request", "frame", "buffer", "queued", "layer", "input", "event",
                              "dispatch", "timeout", "window", "focus", "surface", "handle",
                              "state", "token", "update", "bitmap", "render", "commit", "cache"};
const char kPriorities[] = "VDIWE";

struct Truth {
  std::uint64_t skip_lines = 0;
  std::uint64_t skipped_frames = 0;
  std::uint64_t davey_lines = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LINES [SEED]\n", argv[0]);
    return 2;
  }
  const std::uint64_t lines = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  std::mt19937_64 rng(seed);
  auto pick = [&](std::uint64_t n) { return static_cast<std::size_t>(rng() % n); };

  static char out[1 << 16];
  std::setvbuf(stdout, out, _IOFBF, sizeof out);
  Truth truth;
  const int app_pids[] = {2231, 4410, 8123, 12007};
  std::int64_t ms = 0;
  std::string msg;
  for (std::uint64_t i = 0; i < lines; ++i) {
    ms += static_cast<std::int64_t>(pick(7));
    const int sec = static_cast<int>((ms / 1000) % 60), min = static_cast<int>((ms / 60000) % 60);
    const int hour = static_cast<int>((ms / 3600000) % 24);
    char ts[32];
    std::snprintf(ts, sizeof ts, "11-21 %02d:%02d:%02d.%03d", hour, min, sec, static_cast<int>(ms % 1000));
    const int pid = app_pids[pick(4)];
    const std::size_t kind = pick(1000);
    if (kind < 5) {  // 1 in 200: a real skip
      const unsigned n = 1 + static_cast<unsigned>(pick(3) == 0 ? pick(120) : pick(4));
      std::printf("%s %5d %5d I Choreographer: Skipped %u frames!  The application may be doing too much work on its main thread.\n",
                  ts, pid, pid, n);
      ++truth.skip_lines;
      truth.skipped_frames += n;
    } else if (kind < 7) {  // decoys: same tag or same words, must not count
      if (pick(2) == 0) {
        std::printf("%s %5d %5d W Choreographer: Frame time is 0.41 ms in the future!  Check that graphics HAL is generating vsync timestamps using the correct timebase.\n", ts, pid, pid);
      } else {
        std::printf("%s %5d %5d I init    : Skipped setting INIT_AVB_VERSION (not in recovery mode)\n", ts, 1, 1);
      }
    } else if (kind < 9) {  // stack trace through Choreographer
      std::printf("%s %5d %5d E AndroidRuntime: \tat android.view.Choreographer.doFrame(Choreographer.java:%zu)\n",
                  ts, pid, pid, 600 + pick(400));
    } else if (kind == 9) {
      const unsigned dur = 700 + static_cast<unsigned>(pick(2000));
      std::printf("%s %5d %5d I OpenGLRenderer: Davey! duration=%ums; Flags=0, FrameTimelineVsyncId=%zu, IntendedVsync=%zu, Vsync=%zu, InputEventId=0, HandleInputStart=%zu, AnimationStart=%zu, PerformTraversalsStart=%zu, DrawStart=%zu, FrameDeadline=%zu, FrameInterval=%zu, FrameStartTime=16666666, SyncQueued=%zu, SyncStart=%zu, IssueDrawCommandsStart=%zu, SwapBuffers=%zu, FrameCompleted=%zu, DequeueBufferDuration=24000, QueueBufferDuration=512000, GpuCompleted=%zu, SwapBuffersCompleted=%zu, DisplayPresentTime=0, CommandSubmissionCompleted=%zu, \n",
                  ts, pid, pid + 17, dur, rng() % 100000, rng(), rng(), rng(), rng(), rng(), rng(), rng(),
                  rng(), rng(), rng(), rng(), rng(), rng(), rng(), rng(), rng());
      ++truth.davey_lines;
    } else {
      msg.clear();
      const std::size_t words = kind < 30 ? 60 + pick(200) : 3 + pick(14);  // some long lines
      for (std::size_t w = 0; w < words; ++w) {
        if (w) msg.push_back(' ');
        msg += kWords[pick(sizeof kWords / sizeof *kWords)];
        if (pick(5) == 0) msg += std::to_string(rng() % 100000);
      }
      std::printf("%s %5d %5zu %c %-8s: %s\n", ts, pid, static_cast<std::size_t>(pid) + pick(40),
                  kPriorities[pick(5)], kTags[pick(sizeof kTags / sizeof *kTags)], msg.c_str());
    }
  }
  std::fflush(stdout);
  std::fprintf(stderr, "skip_lines=%" PRIu64 " skipped_frames=%" PRIu64 " davey_lines=%" PRIu64 "\n",
               truth.skip_lines, truth.skipped_frames, truth.davey_lines);
  return 0;
}
