# mk/glue.mk: what the AWS Glue catalog's tests (catalog/glue, and flightd's
# Glue conformance test) need: moto's server mode, the AWS service emulator
# from PyPI, in its own venv, started by testkit/servers/moto on loopback.
# moto answers Glue's API with the catalog held in memory; what it does not
# check (an UpdateTable's VersionId) is written in docs/design.md.
MOTO_VERSION := 5.2.6
MOTO_VENV    := $(TOOLS)/moto-venv
MOTO_STAMP   := $(MOTO_VENV)/.installed-$(MOTO_VERSION)
MOTO_BIN     := $(MOTO_VENV)/bin/moto_server

.PHONY: servers-moto
## servers-moto: install moto's server (moto[server,glue]) in .tools/moto-venv.
servers-moto: $(MOTO_STAMP)

$(MOTO_STAMP):
	$(PYTHON) -m venv $(MOTO_VENV)
	$(MOTO_VENV)/bin/pip install -q 'moto[server,glue]==$(MOTO_VERSION)'
	touch $@

TEST_DEPS += servers-moto
TEST_ENV  += MOTO_BIN=$(MOTO_BIN)
