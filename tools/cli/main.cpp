// fakekube: the command line (demo, serve).
#include <cstdio>

int main(int argc, char** argv) {
  std::puts("fakekube: no command yet");
  return 0;
}
