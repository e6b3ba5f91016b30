// The headers nearly every Qt test includes, compiled once and reused by each test (see
// CMakeLists.txt): parsing QtTest and the app's Qt headers was most of each test's compile time,
// and CI has two cores.
#pragma once
#include <QAbstractListModel>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSignalSpy>
#include <QtTest>
