#include "app/cli/cli_parse.h"

#include <ostream>
#include <sstream>
#include <utility>

#include "app/core/exit_codes.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

// The help of one command or verb: its usage text first, then the options
// CLI11 lists from their descriptions, then the footer.
class Help final : public CLI::Formatter {
 public:
  explicit Help(std::string usage) : usage_(std::move(usage)) { column_width(24); }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << usage_ << make_positionals(app) << make_groups(app, mode) << make_subcommands(app, mode);
    if (const std::string footer = make_footer(app); !footer.empty()) out << "\n" << footer;
    return out.str();
  }

 private:
  std::string usage_;
};

void configure(CLI::App& app, std::string usage, std::string footer) {
  app.formatter(std::make_shared<Help>(std::move(usage)));
  app.footer(std::move(footer));
  app.set_help_flag("-h,--help", "this text");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

// "jank_exporter run stop": the command and the verbs it parsed.
std::string full_name(const CLI::App& command) {
  std::string name = command.get_name();
  for (const CLI::App* app = &command; !app->get_subcommands().empty();) {
    app = app->get_subcommands().front();
    name += " " + app->get_name();
  }
  return name;
}

// CLI11 says "--config: 1 required TEXT missing"; the commands have always
// said "--config needs a value".
std::string message_of(const CLI::ParseError& e) {
  const std::string text = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && text.ends_with(" missing")) {
    if (const auto colon = text.find(": "); colon != std::string::npos) return text.substr(0, colon) + " needs a value";
  }
  return text;
}

}  // namespace

std::unique_ptr<CLI::App> make_command(const std::string& name, std::string usage, std::string footer) {
  auto app = std::make_unique<CLI::App>("", name);
  configure(*app, std::move(usage), std::move(footer));
  return app;
}

CLI::App* add_verb(CLI::App& command, const std::string& name, const std::string& summary, std::string usage,
                   std::string footer) {
  CLI::App* verb = command.add_subcommand(name, summary);
  configure(*verb, std::move(usage), std::move(footer));
  return verb;
}

std::optional<int> parse_command(CLI::App& command, const std::vector<std::string>& args, std::ostream& out,
                                 std::ostream& err) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    command.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << command.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return usage_error(command, err, message_of(e));
  }
  return std::nullopt;
}

int usage_error(const CLI::App& command, std::ostream& err, const std::string& message) {
  err << command.get_name() << ": " << parsers::terminal_text(message) << "\n"
      << "See '" << parsers::terminal_text(full_name(command)) << " --help'.\n";
  return kExitUsage;
}

}  // namespace jank::app
