#pragma once
// One Trit per user: the first instance listens on a local socket; a later start connects, asks it to
// come to the front, and exits.
#include <QLocalServer>
#include <QObject>

namespace trit::ui {

class SingleInstance : public QObject {
  Q_OBJECT
 public:
  // `key` names the socket (per user, per settings location).
  explicit SingleInstance(const QString& key, QObject* parent = nullptr);

  // True if this is the only instance (it now listens). False if another one answered and was asked
  // to raise its window: the caller should exit.
  bool claim();
  QString serverName() const { return name_; }

  // The default key: the user name, so two users on one machine each get their own instance.
  static QString defaultKey();

 signals:
  void raiseRequested();

 private:
  QString name_;
  QLocalServer server_;
};

}  // namespace trit::ui
