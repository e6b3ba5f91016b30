#include "command_line.h"

#include <QCommandLineParser>
#include <QSet>

#include "chat_app.h"
#include "headless/conversations_cli.h"
#include "headless/models_cli.h"
#include "models/model_manager_options.h"

namespace trit::app {
namespace {

// QCommandLineParser::addHelpOption() and addVersionOption() add these; they are ours too.
const QStringList kHelpAndVersion{QStringLiteral("h"),        QStringLiteral("help"), QStringLiteral("?"),
                                  QStringLiteral("help-all"), QStringLiteral("v"),    QStringLiteral("version")};

struct Command {
  const char* option;
  Mode mode;
};
const Command kCommands[] = {{"list-models", Mode::ListModels},
                             {"download", Mode::Download},
                             {"list-conversations", Mode::ListConversations},
                             {"export-conversation", Mode::ExportConversation},
                             {"import-conversation", Mode::ImportConversation},
                             {"set-aside-damaged-database", Mode::SetAsideDamagedDatabase}};

// Options that only change some modes: given to another they would be silently ignored.
constexpr unsigned bit(Mode m) {
  return 1u << static_cast<unsigned>(m);
}
constexpr unsigned kConversationModes = bit(Mode::ListConversations) | bit(Mode::ExportConversation) |
                                        bit(Mode::ImportConversation) | bit(Mode::SetAsideDamagedDatabase);
constexpr unsigned kModelModes = bit(Mode::Window) | bit(Mode::ListModels) | bit(Mode::Download);
struct Modifier {
  const char* option;
  unsigned modes;
};
const Modifier kModifiers[] = {{"format", bit(Mode::ExportConversation)},
                               {"stall-timeout", bit(Mode::Download)},
                               {"retries", bit(Mode::Download)},
                               {"retry-delay", bit(Mode::Download)},
                               {"replace", bit(Mode::Download)},
                               {"keep-both", bit(Mode::Download)},
                               {"catalog", kModelModes},
                               {"models-dir", kModelModes},
                               {"data-dir", bit(Mode::Window) | kConversationModes}};

QString optionText(const char* name) {
  return QStringLiteral("--") + QLatin1String(name);
}

QString modeText(Mode mode) {
  for (const Command& c : kCommands)
    if (c.mode == mode) return optionText(c.option);
  return QStringLiteral("the window");
}

}  // namespace

QList<QCommandLineOption> allOptions() {
  QList<QCommandLineOption> all{QCommandLineOption(
      QStringLiteral("check-startup"), QStringLiteral("Open the main window, report it and exit (used by tests)."))};
  all += chat::ChatApp::options();
  all += conversationOptions();  // --data-dir and the conversation commands
  all += {models::catalogOption(), models::modelsDirOption()};
  all += modelsCommandOptions();
  return all;
}

SplitArguments splitArguments(const QStringList& arguments, const QList<QCommandLineOption>& ours) {
  QSet<QString> names(kHelpAndVersion.begin(), kHelpAndVersion.end());
  QSet<QString> withValue;
  for (const QCommandLineOption& o : ours) {
    for (const QString& n : o.names()) {
      names.insert(n);
      if (!o.valueName().isEmpty()) withValue.insert(n);
    }
  }
  SplitArguments split;
  if (arguments.isEmpty()) return split;
  split.ours << arguments.first();
  split.qt << arguments.first();
  for (qsizetype i = 1; i < arguments.size(); ++i) {
    const QString& a = arguments[i];
    if (a == QLatin1String("--")) {  // the rest is positional: ours (and refused by our parser)
      split.ours += arguments.mid(i);
      break;
    }
    if (!a.startsWith(QLatin1Char('-')) || a == QLatin1String("-")) {
      split.qt << a;  // a value of one of Qt's options (-platform offscreen), or a stray word
      continue;
    }
    // "--name", "--name=value"; single-dash only for the one-letter -h, -v, -?.
    const bool longForm = a.startsWith(QLatin1String("--"));
    const QString body = a.mid(longForm ? 2 : 1);
    const qsizetype eq = body.indexOf(QLatin1Char('='));
    const QString name = eq < 0 ? body : body.left(eq);
    if (!names.contains(name) || (!longForm && name.size() != 1)) {
      split.qt << a;
      continue;
    }
    split.ours << a;
    if (eq < 0 && withValue.contains(name) && i + 1 < arguments.size()) split.ours << arguments[++i];
  }
  return split;
}

bool commandMode(const QCommandLineParser& parser, Mode* mode, QString* error) {
  QStringList given;
  *mode = Mode::Window;
  for (const Command& c : kCommands) {
    if (!parser.isSet(QLatin1String(c.option))) continue;
    given << optionText(c.option);
    *mode = c.mode;
  }
  if (given.size() > 1) {
    *error =
        QStringLiteral("%1 cannot be combined: give one command at a time").arg(given.join(QStringLiteral(" and ")));
    return false;
  }
  for (const Modifier& m : kModifiers) {
    if (!parser.isSet(QLatin1String(m.option)) || (m.modes & bit(*mode))) continue;
    QStringList allowed;
    if (m.modes & bit(Mode::Window)) allowed << modeText(Mode::Window);
    for (const Command& c : kCommands)
      if (m.modes & bit(c.mode)) allowed << modeText(c.mode);
    *error = allowed.size() == 1
                 ? QStringLiteral("%1 applies to %2 only").arg(optionText(m.option), allowed.constFirst())
                 : QStringLiteral("%1 applies to %2, not to %3")
                       .arg(optionText(m.option), allowed.join(QStringLiteral(", ")), modeText(*mode));
    return false;
  }
  // The window's own options mean nothing to a headless command.
  if (*mode != Mode::Window) {
    QList<QCommandLineOption> windowOnly = chat::ChatApp::options();
    windowOnly << QCommandLineOption(QStringLiteral("check-startup"));
    for (const QCommandLineOption& o : windowOnly) {
      if (!parser.isSet(o.names().constFirst())) continue;
      *error = QStringLiteral("--%1 applies to the window, not to %2").arg(o.names().constFirst(), given.constFirst());
      return false;
    }
  }
  return true;
}

Argv::Argv(const QStringList& arguments) {
  for (const QString& a : arguments) storage_.push_back(a.toLocal8Bit());
  for (QByteArray& b : storage_) pointers_.push_back(b.data());
  pointers_.push_back(nullptr);
  argc_ = static_cast<int>(storage_.size());
}

QStringList argumentsOf(int argc, char** argv) {
  QStringList list;
  for (int i = 0; i < argc; ++i) list << QString::fromLocal8Bit(argv[i]);
  return list;
}

}  // namespace trit::app
