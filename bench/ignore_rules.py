"""Ignore rules like real repositories have, for the benchmark trees and the matching benchmark.

`TEMPLATE_RULES` is written in the style of the templates projects start from (Node,
Python, Java with Gradle and Maven, C and Visual Studio, editors and operating
systems): about 300 patterns of every kind git knows, literal names, `*.ext`, `dir/`,
anchored `/path`, `**/x`, `x/**`, negations, character classes, escapes. The nested files
are small, like those deeper in numpy's tree. No rule ignores a file the trees keep; the
tree builder checks that against `git ls-files`.
"""

from __future__ import annotations

TEMPLATE_RULES = r"""# Logs
logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
.pnpm-debug.log*

# Diagnostic reports (https://nodejs.org/api/report.html)
report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json

# Runtime data
pids
*.pid
*.seed
*.pid.lock

# Coverage and instrumentation
lib-cov
coverage
*.lcov
.nyc_output
.grunt
bower_components
.lock-wscript
build/Release

# Dependencies
node_modules/
jspm_packages/
web_modules/
*.tsbuildinfo
.npm
.eslintcache
.stylelintcache
.rpt2_cache/
.rts2_cache_cjs/
.rts2_cache_es/
.rts2_cache_umd/
.node_repl_history
*.tgz
.yarn-integrity

# dotenv files
.env
.env.development.local
.env.test.local
.env.production.local
.env.local
.env.*.local

# Framework caches and output
.cache
.parcel-cache
.next
out
.nuxt
/dist/
.cache/
.vuepress/dist
.temp
.docusaurus
.serverless/
.fusebox/
.dynamodb/
.tern-port
.vscode-test
.svelte-kit/
.turbo/
.vercel
.angular/cache/
storybook-static/

# Yarn
.yarn/*
!.yarn/patches
!.yarn/plugins
!.yarn/releases
!.yarn/sdks
!.yarn/versions
.pnp.*

# Byte-compiled / optimized / DLL files
__pycache__/
*.py[codz]
*$py.class

# C extensions
*.so
!/vendor/native/*.so

# Distribution / packaging
.Python
build/
develop-eggs/
dist/
downloads/
eggs/
.eggs/
parts/
sdist/
var/
wheels/
share/python-wheels/
*.egg-info/
.installed.cfg
*.egg
MANIFEST

# PyInstaller
*.manifest
*.spec

# Installer logs
pip-log.txt
pip-delete-this-directory.txt

# Unit test / coverage reports
htmlcov/
.tox/
.nox/
.coverage
.coverage.*
nosetests.xml
coverage.xml
*.cover
*.py.cover
.hypothesis/
.pytest_cache/
cover/

# Translations
*.mo
*.pot

# Django, Flask, Scrapy, Sphinx
local_settings.py
db.sqlite3
db.sqlite3-journal
instance/
.webassets-cache
.scrapy
docs/_build/
/docs/api/generated/
.pybuilder/
target/

# Jupyter, IPython
.ipynb_checkpoints
**/.ipynb_checkpoints/**
profile_default/
ipython_config.py

# Environments and tools
.pdm.toml
.pdm-python
.pdm-build/
__pypackages__/
celerybeat-schedule
celerybeat.pid
*.sage.py
.envrc
.venv
env/
venv/
ENV/
env.bak/
venv.bak/
.spyderproject
.spyproject
.ropeproject
/site
.mypy_cache/
.dmypy.json
dmypy.json
.pyre/
.pytype/
cython_debug/
.ruff_cache/
.pypirc
__marimo__/

# Compiled class file
*.class
*.ctxt
.mtj.tmp/

# Package files
*.jar
*.war
*.nar
*.ear
*.zip
*.tar.gz
*.rar

# Virtual machine crash logs
hs_err_pid*
replay_pid*

# Gradle
.gradle
**/build/
!src/**/build/
gradle-app.setting
!gradle-wrapper.jar
!gradle-wrapper.properties
.gradletasknamecache
.project
.classpath

# Maven
pom.xml.tag
pom.xml.releaseBackup
pom.xml.versionsBackup
pom.xml.next
release.properties
dependency-reduced-pom.xml
buildNumber.properties
.mvn/timing.properties
.mvn/wrapper/maven-wrapper.jar

# Prerequisites, objects, libraries, executables
*.d
*.o
*.ko
*.obj
*.elf
*.ilk
*.map
*.exp
*.gch
*.pch
*.lib
*.a
*.la
*.lo
*.dll
*.dylib
*.exe
*.out
*.app
*.i*86
*.x86_64
*.hex
*.dSYM/
*.su
*.idb
*.pdb
*.mod*
*.cmd
.tmp_versions/
modules.order
Module.symvers
Mkfile.old
dkms.conf

# Visual Studio
[Dd]ebug/
[Dd]ebugPublic/
[Rr]elease/
[Rr]eleases/
x64/
x86/
[Ww][Ii][Nn]32/
[Aa][Rr][Mm]/
[Aa][Rr][Mm]64/
bld/
[Bb]in/
[Oo]bj/
[Ll]og/
[Ll]ogs/
*_i.c
*_p.c
*_h.h
*.meta
*.iobj
*.ipdb
*.pgc
*.pgd
*.rsp
*.sbr
*.tlb
*.tli
*.tlh
*.tmp
*.tmp_proj
*_wpftmp.csproj
*.vspscc
*.vssscc
.builds
*.pidb
*.svclog
*.scc
*.user
*.userosscache
*.sln.docstates
.vs/

# JetBrains
.idea/
*.iml
*.ipr
*.iws
/out/
cmake-build-*/
.idea_modules/

# Visual Studio Code
.vscode/*
!.vscode/settings.json
!.vscode/tasks.json
!.vscode/launch.json
!.vscode/extensions.json
*.code-workspace
.history/

# Vim
[._]*.s[a-v][a-z]
!*.svg
[._]*.sw[a-p]
[._]s[a-rt-v][a-z]
[._]ss[a-gi-z]
[._]sw[a-p]
Session.vim
Sessionx.vim
.netrwhist
*~
tags
[._]*.un~

# Emacs
\#*\#
/.emacs.desktop
/.emacs.desktop.lock
*.elc
auto-save-list
tramp
.\#*
.org-id-locations
*_archive
*_flymake.*
/eshell/history
/eshell/lastdir
/elpa/
*.rel
/auto/
.cask/
flycheck_*.el
/server/
.projectile
.dir-locals.el

# macOS, Windows, Linux
.DS_Store
.AppleDouble
.LSOverride
Icon[]
._*
.DocumentRevisions-V100
.fseventsd
.Spotlight-V100
.TemporaryItems
.Trashes
.VolumeIcon.icns
.com.apple.timemachine.donotpresent
Thumbs.db
Thumbs.db:encryptable
ehthumbs.db
ehthumbs_vista.db
*.stackdump
[Dd]esktop.ini
$RECYCLE.BIN/
*.cab
*.msi
*.msix
*.msm
*.msp
*.lnk
.fuse_hidden*
.directory
.Trash-*
.nfs*

# Terraform
**/.terraform/*
*.tfstate
*.tfstate.*
crash.log
crash.*.log
override.tf
override.tf.json
*_override.tf
*_override.tf.json
.terraformrc
terraform.rc

# Merge leftovers and backups
*.orig
*.rej
*.bak
*.swp
*.kate-swp
\!important.txt
"""

# Smaller files deeper in a tree, like numpy's: a build directory of their own, local
# output, anchored paths, and negations that re-include one file.
NESTED_RULES = (
    """\
generated/
*.snap
!keep.snap
/local.json
""",
    """\
# generated sources
/build
*.c.src.out
_version.py
!/fixtures/*.out
[0-9]*.tmp
""",
    """\
/_build/
/api/reference/
*.inv
**/cache/*.json
""",
)


# A monorepo of compiler plugins in babel's style: build output under every package, test
# output beside its fixtures, and fixtures that hold a `node_modules` of their own (the
# resolver's tests) re-included under the root's `node_modules` by a negated rule with a
# `**` in the middle, the kind of rule that the tables cannot take.
BABEL_RULES = r"""# editors and tools
.DS_Store
.idea/
.vscode/
*.log
*.cache
.eslintcache
/.yarn/*
!/.yarn/patches
!/.yarn/plugins
!/.yarn/releases

node_modules
!**/test/fixtures/**/node_modules
/coverage
/dist
/build
/lib/**/*.js
/tests.json
/browser.js

# packages' build output
packages/*/lib
!packages/babel-runtime-*/lib
packages/*/dist
packages/**/test/tmp
packages/**/test/fixtures/**/actual.js
packages/**/test/fixtures/**/output.map.json
/packages/babel-standalone/babel*.js
/packages/babel-parser/build
codemods/*/lib
eslint/*/lib
**/test/fixtures/**/*.tmp
**/tmp-[0-9]*/
[Tt]humbs.db
"""


# The first 10 and 130 patterns of the template: ignore files the size of a small
# project's and of numpy's.
def first_patterns(count: int) -> str:
    """The template's first `count` pattern lines (comments and blank lines kept)."""
    lines = []
    seen = 0
    for line in TEMPLATE_RULES.splitlines():
        if line and not line.startswith("#"):
            if seen == count:
                break
            seen += 1
        lines.append(line)
    return "\n".join(lines) + "\n"


def pattern_count(text: str) -> int:
    """How many pattern lines `text` has (not blank, not a comment)."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.startswith("#"))
