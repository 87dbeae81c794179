package scripts

// Tests of scripts/install-highs.sh (the HiGHS build of the setup) that
// need no network: the skip when HiGHS is installed, the refusal without
// root, the choice of mirror from the apt sources, and the SHA-256 check of
// the tarball fetched through apt from a local file:// archive.

import (
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installHighsCopy copies the script into a world-readable directory (the
// clone may not be readable by the unprivileged user some tests run as).
func installHighsCopy(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("install-highs.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := installHighsDir(t)
	path := filepath.Join(dir, "install-highs.sh")
	if err := os.WriteFile(path, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// installHighsDir is a temporary directory every user can read.
func installHighsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// t.TempDir's parent is private too.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// installHighsStub puts a fake pkg-config exiting with code rc first on a
// PATH and returns that PATH.
func installHighsStub(t *testing.T, rc int) string {
	t.Helper()
	dir := installHighsDir(t)
	stub := fmt.Sprintf("#!/bin/sh\n[ \"$1\" = --modversion ] && echo 9.9.9\nexit %d\n", rc)
	if err := os.WriteFile(filepath.Join(dir, "pkg-config"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + ":" + os.Getenv("PATH")
}

// installHighsRun runs the script with the environment env (added to a
// minimal one), as an unprivileged user when unprivileged is set and the
// test runs as root (skipped without setpriv). It returns the exit code
// and the combined output.
func installHighsRun(t *testing.T, unprivileged bool, env []string, args ...string) (int, string) {
	t.Helper()
	script := installHighsCopy(t)
	argv := append([]string{"bash", script}, args...)
	if unprivileged && os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("setpriv not found: cannot run the script as an unprivileged user")
		}
		argv = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append([]string{"HOME=/tmp", "LC_ALL=C"}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("running %v: %v", argv, err)
	}
	return 0, string(out)
}

func TestInstallHighsSkipsWhenInstalled(t *testing.T) {
	// Unprivileged: when pkg-config finds highs the script needs nothing.
	rc, out := installHighsRun(t, true, []string{"PATH=" + installHighsStub(t, 0)})
	if rc != 0 || !strings.Contains(out, "HiGHS 9.9.9 already installed; nothing to do") {
		t.Fatalf("exit %d, output:\n%s\nwant exit 0 and 'already installed'", rc, out)
	}
}

func TestInstallHighsNeedsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("running unprivileged already")
	}
	rc, out := installHighsRun(t, true, []string{"PATH=" + installHighsStub(t, 1)})
	if rc != 1 || !strings.Contains(out, "ERROR: must run as root") {
		t.Fatalf("exit %d, output:\n%s\nwant exit 1 and 'must run as root'", rc, out)
	}
	rc, out = installHighsRun(t, false, []string{"PATH=" + os.Getenv("PATH")}, "--no-such-flag")
	if rc != 1 || !strings.Contains(out, "unknown argument --no-such-flag") {
		t.Fatalf("bad argument: exit %d, output:\n%s", rc, out)
	}
}

// installHighsApt writes an apt configuration directory with the given
// files (relative path → content) and an os-release naming bookworm.
func installHighsApt(t *testing.T, files map[string]string) []string {
	t.Helper()
	dir := installHighsDir(t)
	for name, content := range files {
		path := filepath.Join(dir, "apt", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "apt", "sources.list.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	osr := filepath.Join(dir, "os-release")
	if err := os.WriteFile(osr, []byte("ID=debian\nVERSION_CODENAME=bookworm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + os.Getenv("PATH"), "INSTALL_HIGHS_APT_DIR=" + filepath.Join(dir, "apt"), "INSTALL_HIGHS_OS_RELEASE=" + osr}
}

func TestInstallHighsMirrorFromAptSources(t *testing.T) {
	debian822 := `Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main

Types: deb
URIs: http://mirror.example/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"deb822 (Debian 12 default), security stanza first", map[string]string{
			"sources.list.d/debian.sources": debian822,
		}, []string{"http://mirror.example/debian"}},
		{"a third-party deb822 source sorted first", map[string]string{
			"sources.list.d/aaa-nodesource.sources": "Types: deb\nURIs: https://deb.nodesource.example/node_20.x\nSuites: nodistro\nComponents: main\n",
			"sources.list.d/debian.sources":         debian822,
		}, []string{"http://mirror.example/debian", "https://deb.nodesource.example/node_20.x"}},
		{"one-line format with options, security and third-party lines", map[string]string{
			"sources.list": "# comment\ndeb http://security.example/debian-security bookworm-security main\n" +
				"deb-src http://src.example/debian bookworm main\n" +
				"deb [arch=amd64 signed-by=/k.gpg] http://ftp.example/debian bookworm main contrib\n",
			"sources.list.d/cloud.list": "deb [ signed-by=/c.gpg ] https://packages.cloud.example/apt cloud-sdk main\n",
		}, []string{"http://ftp.example/debian", "https://packages.cloud.example/apt"}},
		{"disabled and source-only stanzas are skipped", map[string]string{
			"sources.list.d/debian.sources": "Types: deb\nURIs: http://off.example/debian\nSuites: bookworm\nEnabled: no\n\n" +
				"Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\n\n" +
				"Types: deb deb-src\nURIs: http://on.example/debian\nSuites: bookworm\n",
		}, []string{"http://on.example/debian"}},
		{"no sources", map[string]string{}, nil},
	}
	for _, c := range cases {
		rc, out := installHighsRun(t, false, installHighsApt(t, c.files), "--print-mirrors")
		if got := strings.Fields(out); rc != 0 || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: exit %d, mirrors %q, want %q", c.name, rc, got, c.want)
		}
	}
	env := installHighsApt(t, map[string]string{})
	if os.Geteuid() == 0 {
		rc, out := installHighsRun(t, false, env, "--fetch-only", installHighsDir(t))
		if rc != 1 || !strings.Contains(out, "could not find a Debian mirror") {
			t.Errorf("no sources: exit %d, output:\n%s", rc, out)
		}
	}
}

// A local archive serving a wrong highs_1.10.0+ds.orig.tar.xz and no .dsc:
// the script fetches the tarball through apt (which then fails on the
// .dsc), and rejects it by its SHA-256.
func TestInstallHighsChecksTheTarball(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the fetch runs apt-get as root")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("apt-get not found")
	}
	repo := installHighsDir(t)
	tarball := []byte("not the HiGHS sources\n")
	name := "highs_1.10.0+ds.orig.tar.xz"
	pool := filepath.Join(repo, "pool", "main", "h", "highs")
	srcDir := filepath.Join(repo, "dists", "trixie", "main", "source")
	for _, d := range []string{pool, srcDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pool, name), tarball, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(tarball))
	sources := fmt.Sprintf(`Package: highs
Binary: highs
Version: 1.10.0+ds-1
Maintainer: Nobody <nobody@example.org>
Architecture: any
Format: 3.0 (quilt)
Directory: pool/main/h/highs
Files:
 0123456789abcdef0123456789abcdef 100 highs_1.10.0+ds-1.dsc
 %x %d %s
Checksums-Sha256:
 %064d 100 highs_1.10.0+ds-1.dsc
 %s %d %s

`, md5.Sum(tarball), len(tarball), name, 0, sum, len(tarball), name)
	if err := os.WriteFile(filepath.Join(srcDir, "Sources"), []byte(sources), 0o644); err != nil {
		t.Fatal(err)
	}
	release := fmt.Sprintf("Suite: trixie\nCodename: trixie\nComponents: main\nArchitectures: amd64 source\nSHA256:\n %x %d main/source/Sources\n",
		sha256.Sum256([]byte(sources)), len(sources))
	if err := os.WriteFile(filepath.Join(repo, "dists", "trixie", "Release"), []byte(release), 0o644); err != nil {
		t.Fatal(err)
	}
	env := installHighsApt(t, map[string]string{"sources.list": "deb file://" + repo + " bookworm main\n"})
	rc, out := installHighsRun(t, false, env, "--fetch-only", installHighsDir(t))
	if rc != 1 || !strings.Contains(out, "SHA-256 mismatch for "+name+": got "+sum) ||
		!strings.Contains(out, "ERROR: could not fetch highs 1.10.0") {
		t.Fatalf("exit %d, output:\n%s\nwant the tarball fetched (got %s) and rejected", rc, out, sum)
	}
}

func TestSetupRunsInstallHighs(t *testing.T) {
	for file, want := range map[string]string{
		"setup.sh": "bash scripts/install-highs.sh",
		"test.sh":  "bash scripts/setup.sh",
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("scripts/%s does not run %q", file, want)
		}
	}
}
