import java.io.*;
import java.util.*;

// Stakes the most valuable empty square.
public class homework {
    public static void main(String[] args) throws IOException {
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new FileReader("input.txt"))) {
            for (String line; (line = in.readLine()) != null; ) lines.add(line.trim());
        }
        int n = Integer.parseInt(lines.get(0));
        int best = -1, bestR = 0, bestC = 0;
        for (int r = 0; r < n; r++) {
            String[] values = lines.get(4 + r).split("\\s+");
            String row = lines.get(4 + n + r);
            for (int c = 0; c < n; c++) {
                int v = Integer.parseInt(values[c]);
                if (row.charAt(c) == '.' && v > best) { best = v; bestR = r; bestC = c; }
            }
        }
        try (PrintWriter out = new PrintWriter("output.txt")) {
            out.println((char) ('A' + bestC) + "" + (bestR + 1) + " Stake");
        }
    }
}
