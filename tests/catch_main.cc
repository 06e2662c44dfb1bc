// Catch2's main for every test binary. A run whose name matches no test case
// fails (exit 2) instead of passing with nothing run: CTest runs one test case
// per entry, by name, and a name Catch cannot match (a ';' splits CTest's
// lists) would otherwise pass without running.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::Session session;
  session.configData().warnings = static_cast<Catch::WarnAbout::What>(
      session.configData().warnings | Catch::WarnAbout::NoTests);
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}
