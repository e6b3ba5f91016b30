#pragma once
// The `trit` binary's command line, read once, before any Q*Application exists. Every argument is
// either ours or Qt's, never both: Qt Quick reads QGuiApplication::arguments() itself (a "--device=N"
// names its scene-graph backend and aborts offscreen), so Qt is given only what is not ours, and our
// parser never sees Qt's. Every option of ours takes `--opt value` and `--opt=value` alike.
#include <QCommandLineOption>
#include <QList>
#include <QStringList>
#include <vector>

class QCommandLineParser;

namespace trit::app {

// Both lists begin with the program name.
struct SplitArguments {
  QStringList ours;  // our options with their values, and positional arguments (which we refuse)
  QStringList qt;    // everything else: Qt's options (-platform, -style, ...) or unknown ones
};
SplitArguments splitArguments(const QStringList& arguments, const QList<QCommandLineOption>& ours);

// What the command line asks for: the window, or one headless command.
enum class Mode {
  Window,
  ListModels,
  Download,
  ListConversations,
  ExportConversation,
  ImportConversation,
  SetAsideDamagedDatabase
};

// Every option of the binary (window, headless commands, --help, --version), for one parser.
QList<QCommandLineOption> allOptions();

// The mode `parser` asks for; false with `error` set when it asks for two (e.g. --download with
// --list-models) or gives an option to a mode it does not apply to.
bool commandMode(const QCommandLineParser& parser, Mode* mode, QString* error);

// argc/argv for a Q*Application built from a QStringList; the storage lives as long as this object.
class Argv {
 public:
  explicit Argv(const QStringList& arguments);
  int& argc() { return argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<QByteArray> storage_;
  std::vector<char*> pointers_;
  int argc_ = 0;
};

// argv as Qt would read it (the local 8-bit encoding), before any application object exists.
QStringList argumentsOf(int argc, char** argv);

}  // namespace trit::app
