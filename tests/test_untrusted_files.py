"""Reading, copying and removing what a submission controls (engine.sandbox.untrusted_files)."""

import os
import stat

import pytest

from engine.sandbox.untrusted_files import (Bounds, TooLarge, copy_tree, open_path,
                                            read_regular, read_untrusted_text, remove_tree,
                                            walk)


@pytest.fixture
def tree(tmp_path):
    """A submission with a file, a sub-folder, a link out, a FIFO and a link to a FIFO."""
    root = tmp_path / "sub"
    (root / "inner").mkdir(parents=True)
    (root / "main.py").write_text("print(1)\n")
    (root / "main.py").chmod(0o755)
    (root / "inner" / "data.txt").write_text("data\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    (root / "link").symlink_to(secret)
    (root / "inner" / "up").symlink_to(tmp_path)
    os.mkfifo(root / "fifo")
    (root / "to-fifo").symlink_to(root / "fifo")
    yield root
    remove_tree(str(tmp_path))


def test_only_regular_files_are_read_and_links_never_followed(tree):
    folder = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert read_regular("main.py", folder) == (b"print(1)\n", 9)
        assert read_regular("main.py", folder, cap=5) == (b"print", 9)
        assert read_regular("link", folder) is None
        assert read_regular("fifo", folder) is None          # and does not block
        assert read_regular("to-fifo", folder) is None
        assert read_regular("inner", folder) is None
    finally:
        os.close(folder)
    assert read_untrusted_text(str(tree / "link")) is None
    assert read_untrusted_text(str(tree / "fifo")) is None
    assert read_untrusted_text("/proc/self/mem") in (None, "")


def test_a_file_is_read_in_one_call_and_short_reads_are_completed(tmp_path, monkeypatch):
    """A graded visited.txt is megabytes: one read of the wanted size gives the bytes
    object returned (no chunks joined, no second copy); a read that comes back short
    is followed by more until the wanted size or the end."""
    data = bytes(range(256)) * (3 * 4096 + 7)          # 3 MB and a bit: past 1 MB chunks
    (tmp_path / "visited.txt").write_bytes(data)
    real_read = os.read
    sizes = []

    def counted_read(descriptor, size):
        sizes.append(size)
        return real_read(descriptor, size)

    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        monkeypatch.setattr(os, "read", counted_read)
        assert read_regular("visited.txt", folder) == (data, len(data))
        assert sizes == [len(data)]
        sizes.clear()
        assert read_regular("visited.txt", folder, cap=1000) == (data[:1000], len(data))
        assert sizes == [1000]

        monkeypatch.setattr(os, "read",
                            lambda descriptor, size: real_read(descriptor, min(size, 4096)))
        assert read_regular("visited.txt", folder) == (data, len(data))
        assert read_regular("visited.txt", folder, cap=10_000) == (data[:10_000], len(data))
    finally:
        monkeypatch.undo()
        os.close(folder)


def test_a_link_on_the_way_is_refused(tree):
    folder = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.raises(OSError):
            open_path("inner/up", folder)
        inner = open_path("inner", folder)
        os.close(inner)
    finally:
        os.close(folder)


def test_walk_lists_without_entering_links_and_stops_at_its_bounds(tree):
    kinds = {entry.path: entry.kind for entry in walk(str(tree))}
    assert kinds == {"fifo": "other", "inner": "folder", "inner/data.txt": "file",
                     "inner/up": "link", "link": "link", "main.py": "file",
                     "to-fifo": "link"}
    with pytest.raises(TooLarge, match="more than 3 files and folders"):
        walk(str(tree), Bounds(entries=3))
    with pytest.raises(TooLarge, match="nested more than 0 deep"):
        walk(str(tree), Bounds(depth=0))
    with pytest.raises(TooLarge, match="of files"):
        walk(str(tree), Bounds(bytes=10))


def test_copy_keeps_files_modes_and_links_but_no_special_files(tree, tmp_path):
    copied = copy_tree(str(tree), str(tmp_path / "copy"), skip=("inner",))
    target = tmp_path / "copy"
    assert sorted(os.listdir(target)) == ["link", "main.py", "to-fifo"]
    assert os.readlink(target / "link") == str(tmp_path / "secret.txt")
    assert stat.S_IMODE((target / "main.py").stat().st_mode) == 0o755
    assert sorted(entry.path for entry in copied) == ["link", "main.py", "to-fifo"]


def test_remove_tree_takes_any_depth_and_locked_folders(tmp_path):
    victim = tmp_path / "outside"
    victim.mkdir()
    (victim / "keep").write_text("keep")
    top = tmp_path / "top"
    top.mkdir()
    folder = os.open(top, os.O_RDONLY)
    for _ in range(5000):
        os.mkdir("d", dir_fd=folder)
        inner = os.open("d", os.O_RDONLY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.symlink(victim, "escape", dir_fd=folder)
    os.close(folder)
    (top / "locked").mkdir()
    (top / "locked" / "x").write_text("x")
    (top / "locked").chmod(0)
    remove_tree(str(top))
    assert not top.exists()
    assert (victim / "keep").read_text() == "keep"


@pytest.fixture(params=["openat2", "component by component"])
def resolution(request, monkeypatch):
    """Both ways a path below a folder is resolved: openat2 (this kernel) and the
    fallback of kernels without it."""
    from engine.sandbox import untrusted_files
    if request.param == "openat2":
        if not untrusted_files.uses_openat2():
            pytest.skip("no openat2 here")
    else:
        monkeypatch.setattr(untrusted_files, "_OPENAT2_STATE", [None])
        monkeypatch.setattr(untrusted_files, "_OPENAT2_CHECKED", [True])
    return request.param


def test_no_link_nor_dotdot_is_ever_resolved_below_a_folder(tmp_path, resolution):
    from engine.sandbox.untrusted_files import (lstat_beneath, open_beneath,
                                                remove_beneath, write_new)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("secret\n")
    run = tmp_path / "run"
    (run / "real").mkdir(parents=True)
    (run / "up").symlink_to(outside)
    (run / "real" / "file").symlink_to(outside / "secret")
    folder = os.open(run, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for relative in ("up/secret", "real/file", "up"):
            with pytest.raises(OSError):
                os.close(open_beneath(relative, folder, os.O_RDONLY))
        with pytest.raises(ValueError):
            open_beneath("../outside/secret", folder, os.O_RDONLY)
        with pytest.raises(ValueError):
            open_beneath(str(outside / "secret"), folder, os.O_RDONLY)
        assert lstat_beneath("up/secret", folder) is None
        with pytest.raises(OSError):
            write_new("up/new", b"x", folder)
        with pytest.raises(FileExistsError):
            write_new("real/file", b"x", folder)
        assert remove_beneath("up/secret", folder)      # nothing there: no link followed
        write_new("real/deeper/new", b"x", folder)
        assert (run / "real" / "deeper" / "new").read_bytes() == b"x"
    finally:
        os.close(folder)
    assert (outside / "secret").read_text() == "secret\n"
    assert sorted(path.name for path in outside.iterdir()) == ["secret"]


def test_a_folder_swapped_for_a_link_in_a_loop_never_leads_outside(tmp_path, resolution):
    """Another process swaps ``x`` between a folder and a link to the outside (atomic
    RENAME_EXCHANGE) while we create files below ``x`` thousands of times."""
    import ctypes
    import multiprocessing
    from engine.sandbox.untrusted_files import write_new
    outside = tmp_path / "outside"
    outside.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "x").mkdir()
    (run / "l").symlink_to(outside)
    stop = multiprocessing.Event()

    def swap():
        exchange = ctypes.CDLL(None).renameat2
        while not stop.is_set():
            exchange(-100, str(run / "x").encode(), -100, str(run / "l").encode(), 2)

    swapper = multiprocessing.Process(target=swap)
    swapper.start()
    folder = os.open(run, os.O_RDONLY | os.O_DIRECTORY)
    written = refused = 0
    try:
        for number in range(3000):
            try:
                write_new(f"x/f{number}", b"x", folder)
                written += 1
            except OSError:
                refused += 1
    finally:
        stop.set()
        swapper.join(10)
        os.close(folder)
    assert list(outside.iterdir()) == []
    assert written + refused == 3000


@pytest.mark.parametrize("refused_by_os_link", [False, True])
def test_hard_link_links_a_link_itself_even_where_os_link_refuses_the_flag(
        tmp_path, monkeypatch, refused_by_os_link):
    # PyPy's os.link(follow_symlinks=False) fails with EINVAL: the libc fallback must
    # make the same link, and a symbolic link is linked as itself, never its target.
    import errno

    from engine.sandbox import untrusted_files
    if refused_by_os_link:
        def refuse(*args, **kwargs):
            raise OSError(errno.EINVAL, "Invalid argument")
        monkeypatch.setattr(untrusted_files.os, "link", refuse)
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    target.mkdir()
    (tmp_path / "secret").write_text("root's")
    (source / "plain").write_text("mine")
    os.symlink(tmp_path / "secret", source / "pointer")
    source_fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY)
    target_fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    try:
        untrusted_files.hard_link("plain", source_fd, target_fd)
        untrusted_files.hard_link("pointer", source_fd, target_fd)
    finally:
        os.close(source_fd)
        os.close(target_fd)
    assert os.path.samefile(source / "plain", target / "plain")
    assert (target / "pointer").is_symlink()
    assert os.stat(tmp_path / "secret").st_nlink == 1
