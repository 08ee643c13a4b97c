#pragma once
// The engine speaks std::string, Qt QString: the one conversion of a list of names between them.

#include <QStringList>

#include <string>
#include <vector>

inline QStringList toQStringList(const std::vector<std::string>& names) {
    QStringList list;
    list.reserve(static_cast<qsizetype>(names.size()));
    for (const std::string& n : names) {
        list << QString::fromStdString(n);
    }
    return list;
}
