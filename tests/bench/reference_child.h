#pragma once
// A peer's reference script as a child process (ONNX Runtime for bench_onnx_inference, PyTorch for
// bench_training): it prints "ready VERSION" once it has set up, then answers each line it is sent
// with one number (the milliseconds of what the line asked for), so that ours and the peer's runs
// interleave on the same machine state.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace ampstudio::bench {

// The python of the developer venvs beside the differential tools, the first that exists; empty
// when none does (the peer's figures are then left out).
inline std::string referencePython(const std::filesystem::path& benchSource, std::initializer_list<const char*> venvs) {
    for (const char* venv : venvs) {
        const auto p = benchSource.parent_path() / "differential" / venv / "bin" / "python";
        if (std::filesystem::exists(p)) return p.string();
    }
    return {};
}

class ReferenceChild {
public:
    // False when it cannot start or does not say "ready".
    bool start(const std::vector<std::string>& command) {
        int in[2], out[2];
        if (command.empty() || pipe(in) != 0 || pipe(out) != 0) return false;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], 0);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_addclose(&actions, in[1]);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        std::vector<std::string> args = command;
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int rc = posix_spawn(&m_pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(in[0]);
        close(out[1]);
        if (rc != 0) return false;
        m_to = fdopen(in[1], "w");
        m_from = fdopen(out[0], "r");
        char line[256];
        if (!fgets(line, sizeof line, m_from) || std::strncmp(line, "ready", 5) != 0) return false;
        m_version = std::string(line + 6);
        if (!m_version.empty() && m_version.back() == '\n') m_version.pop_back();
        return true;
    }
    // Sends `request` (one line) and returns the number answered, -1 when none came.
    double ask(const std::string& request) {
        std::fputs((request + "\n").c_str(), m_to);
        std::fflush(m_to);
        char line[64];
        return fgets(line, sizeof line, m_from) ? std::atof(line) : -1.0;
    }
    const std::string& version() const { return m_version; }
    ~ReferenceChild() {
        if (m_to) std::fclose(m_to);
        if (m_from) std::fclose(m_from);
        if (m_pid > 0) waitpid(m_pid, nullptr, 0);
    }

private:
    pid_t m_pid = -1;
    FILE* m_to = nullptr;
    FILE* m_from = nullptr;
    std::string m_version;
};

}  // namespace ampstudio::bench
