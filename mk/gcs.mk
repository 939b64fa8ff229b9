# mk/gcs.mk: fake-gcs-server, the GCS JSON API emulator fileio/gcs's tests
# start (testkit/servers/fakegcs), built from its Go module.
FAKEGCS_VERSION := v1.56.1
FAKEGCS_BIN     := $(TOOLS)/fake-gcs-server-$(FAKEGCS_VERSION)/fake-gcs-server

.PHONY: servers-fakegcs
servers-fakegcs: $(FAKEGCS_BIN)

$(FAKEGCS_BIN):
	mkdir -p $(dir $@)
	GOBIN=$(dir $@) $(GO) install github.com/fsouza/fake-gcs-server@$(FAKEGCS_VERSION)

TEST_DEPS += servers-fakegcs
TEST_ENV  += FAKEGCS_BIN=$(FAKEGCS_BIN)
