# mk/s3.mk: versitygw, the S3 gateway (posix back end) that fileio/s3's tests
# start (testkit/servers/versitygw), built from its Go module with the
# toolchain that builds iceflight, so no prebuilt binary is fetched.
VERSITYGW_VERSION := v1.8.0
VERSITYGW_BIN     := $(TOOLS)/versitygw-$(VERSITYGW_VERSION)/versitygw

.PHONY: servers-versitygw
servers-versitygw: $(VERSITYGW_BIN)

$(VERSITYGW_BIN):
	mkdir -p $(dir $@)
	GOBIN=$(dir $@) $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

TEST_DEPS += servers-versitygw
TEST_ENV  += VERSITYGW_BIN=$(VERSITYGW_BIN)
