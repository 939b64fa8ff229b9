# mk/azure.mk: Azurite, Microsoft's Azure Storage emulator, from npm; the
# tests of fileio/azure start its Blob service (testkit/servers/azurite).
AZURITE_VERSION := 3.35.0
AZURITE_DIR     := $(TOOLS)/azurite-$(AZURITE_VERSION)
AZURITE_BIN     := $(AZURITE_DIR)/node_modules/.bin/azurite-blob

.PHONY: servers-azurite
servers-azurite: $(AZURITE_BIN)

$(AZURITE_BIN):
	mkdir -p $(AZURITE_DIR)
	npm install --prefix $(AZURITE_DIR) --no-audit --no-fund azurite@$(AZURITE_VERSION)
	test -x $@

TEST_DEPS += servers-azurite
TEST_ENV  += AZURITE_BIN=$(AZURITE_BIN)
