#pragma once
// Headless conversation commands for backups and scripts, run by `trit` before any window exists:
//   trit --list-conversations
//   trit --export-conversation ID [--format markdown|json]
//   trit --import-conversation FILE        (FILE "-" reads standard input)
//   trit --set-aside-damaged-database      (the way out when the database file is damaged)
// all with an optional --data-dir DIR. They use the app's database, need no display, and never wait
// longer than the busy timeout for a write lock held by a running app.
#include <QCommandLineOption>
#include <QList>

class QCommandLineParser;

namespace trit::app {

// Exit codes of the conversation commands (also documented in docs/storage.md).
enum ConversationExit { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitLocked = 3, kExitDamaged = 4 };

// --data-dir and the commands above (command_line.h parses them with the rest).
QList<QCommandLineOption> conversationOptions();
// Runs the command `parser` holds (main() made the QCoreApplication) and returns the exit code.
int runConversationCommand(const QCommandLineParser& parser);

// Applies --data-dir (if given) to where the app keeps its database (the window does it too).
void applyConversationOptions(const QCommandLineParser& parser);

}  // namespace trit::app
