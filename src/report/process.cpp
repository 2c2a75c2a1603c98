// fork/exec for the report verbs' helper programs.
#include "report/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace sgt::report {

int run_command(const std::vector<std::string>& argv, const std::string& output_file,
                const std::string& working_dir) {
  if (argv.empty()) throw Error(ErrorKind::invalid_value, "run_command: no program");
  std::vector<char*> args;
  for (const std::string& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  // Buffered output would otherwise be written twice, once by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) throw Error(ErrorKind::internal, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) _exit(126);
    const int fd = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw Error(ErrorKind::internal, fmt::format("waitpid: {}", std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string read_tail(const std::string& path, std::size_t max_chars) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  if (text.size() > max_chars) text = "..." + text.substr(text.size() - max_chars);
  return text;
}

}  // namespace sgt::report
