// Stakes the most valuable empty square; raids when a raid gains more.
#include <fstream>
#include <string>
#include <vector>
#include <cstring>
#include <cstdio>

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "--calibrate") == 0) {
        long spins = 0;
        for (long i = 0; i < 100000000L; ++i) spins += i & 1;
        std::printf("%ld\n", spins);
        return 0;
    }
    std::ifstream in("input.txt");
    int n; std::string mode, side; double seconds;
    in >> n >> mode >> side >> seconds;
    std::vector<std::vector<int>> value(n, std::vector<int>(n));
    for (auto &row : value) for (auto &v : row) in >> v;
    std::vector<std::string> board(n);
    for (auto &row : board) in >> row;
    char me = side[0], them = me == 'X' ? 'O' : 'X';
    int best = -1, bestR = 0, bestC = 0; bool raid = false;
    const int dr[] = {-1, 1, 0, 0}, dc[] = {0, 0, -1, 1};
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            if (board[r][c] != '.') continue;
            int gain = value[r][c], taken = 0; bool mine = false;
            for (int k = 0; k < 4; ++k) {
                int rr = r + dr[k], cc = c + dc[k];
                if (rr < 0 || cc < 0 || rr >= n || cc >= n) continue;
                if (board[rr][cc] == me) mine = true;
                if (board[rr][cc] == them) taken += value[rr][cc];
            }
            if (gain > best) { best = gain; bestR = r; bestC = c; raid = false; }
            if (mine && taken > 0 && gain + 2 * taken > best) {
                best = gain + 2 * taken; bestR = r; bestC = c; raid = true;
            }
        }
    std::ofstream out("output.txt");
    out << char('A' + bestC) << bestR + 1 << (raid ? " Raid" : " Stake") << "\n";
    return 0;
}
