// Qt headers most of the app's sources include, compiled once for trit_app_core (app/CMakeLists.txt):
// parsing them was most of each source's compile time, and CI has two cores.
#pragma once
#include <QAbstractListModel>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QUrl>
#include <QVariant>
