import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code java TakeStones n k s1 .. sk depth}: the command graders type, forwarded to the
 * Python program {@code TakeStones} that sits in the same folder as this class file.
 *
 * <p>Contract: the Python program gets exactly these arguments and inherits this
 * process's stdin, stdout and stderr (the output is streamed, never buffered here); the
 * exit code is the Python program's. The interpreter is {@code python3}, or the one named
 * by the environment variable TAKESTONES_PYTHON. Built by {@code make TakeStones.class};
 * the class file is a build product (git-ignored).
 */
public final class TakeStones {
    private TakeStones() {
    }

    public static void main(String[] args) throws InterruptedException {
        File script;
        try {
            File location = new File(TakeStones.class.getProtectionDomain()
                    .getCodeSource().getLocation().toURI());
            File folder = location.isDirectory() ? location : location.getParentFile();
            script = new File(folder, "TakeStones");
        } catch (Exception error) {
            System.err.println("TakeStones: cannot locate the class file: " + error);
            System.exit(2);
            return;
        }
        if (!script.isFile()) {
            System.err.println("TakeStones: the Python program " + script
                    + " is missing (it must sit beside TakeStones.class)");
            System.exit(2);
        }
        String python = System.getenv("TAKESTONES_PYTHON");
        if (python == null || python.isEmpty()) {
            python = "python3";
        }
        List<String> command = new ArrayList<>();
        command.add(python);
        command.add(script.getPath());
        for (String argument : args) {
            command.add(argument);
        }
        try {
            Process child = new ProcessBuilder(command).inheritIO().start();
            System.exit(child.waitFor());
        } catch (IOException error) {
            System.err.println("TakeStones: cannot run " + python + ": " + error.getMessage());
            System.exit(2);
        }
    }
}
