// simdjson's side of the stage-1 harness (built only when libsimdjson is found): its stage 1
// alone, through the documented-but-internal dom_parser_implementation, and its full DOM parse.
#include <simdjson.h>

#include <cstdint>
#include <cstdlib>

struct sj_ctx {
    std::unique_ptr<simdjson::internal::dom_parser_implementation> impl;
    simdjson::dom::parser parser;
};

extern "C" {

void *sj_new(size_t capacity) {
    sj_ctx *c = new sj_ctx();
    if (simdjson::get_active_implementation()->create_dom_parser_implementation(
            capacity, simdjson::DEFAULT_MAX_DEPTH, c->impl) != simdjson::SUCCESS) {
        delete c;
        return nullptr;
    }
    if (c->parser.allocate(capacity) != simdjson::SUCCESS) {
        delete c;
        return nullptr;
    }
    return c;
}

void sj_free(void *ctx) { delete static_cast<sj_ctx *>(ctx); }

const char *sj_impl_name(void) { return simdjson::get_active_implementation()->name().c_str(); }

size_t sj_padding(void) { return simdjson::SIMDJSON_PADDING; }

// 0 ok (idx/count set), 1 refused.  p must be readable for n + SIMDJSON_PADDING bytes.
int sj_stage1(void *ctx, const uint8_t *p, size_t n, const uint32_t **idx, size_t *count) {
    sj_ctx *c = static_cast<sj_ctx *>(ctx);
    if (c->impl->stage1(p, n, simdjson::stage1_mode::regular) != simdjson::SUCCESS) {
        return 1;
    }
    *idx = c->impl->structural_indexes.get();
    *count = c->impl->n_structural_indexes;
    return 0;
}

int sj_parse(void *ctx, const uint8_t *p, size_t n) {
    sj_ctx *c = static_cast<sj_ctx *>(ctx);
    simdjson::dom::element e;
    return c->parser.parse(p, n, false).get(e) == simdjson::SUCCESS ? 0 : 1;
}
}
