// REMOTE over TLS: grpcs:// with REMOTE_TLS_CA against a vireo_server with --tls_cert (a CA and a
// server certificate for 127.0.0.1 made with the openssl command), and the failures: plain text to
// a TLS server, and a CA that did not sign the server's certificate.
#include "test_utils.hpp"
#include "vireo/exception.hpp"

namespace vireo::remote::test {
namespace {

bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// Writes ca.pem (and ca.key) in `dir`, and with `server` also server.pem/server.key signed by it.
void make_ca(const std::string& dir, bool server) {
    const std::string p = dir + "/";
    ASSERT_TRUE(run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + p + "ca.key -out " + p +
                    "ca.pem -days 2 -subj '/CN=vireo remote test CA'"));
    if (!server) return;
    {
        std::ofstream san(p + "san.cnf");
        san << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    }
    ASSERT_TRUE(run("openssl req -newkey rsa:2048 -nodes -keyout " + p + "server.key -out " + p +
                    "server.csr -subj /CN=localhost"));
    ASSERT_TRUE(run("openssl x509 -req -in " + p + "server.csr -CA " + p + "ca.pem -CAkey " + p +
                    "ca.key -CAcreateserial -out " + p + "server.pem -days 2 -extfile " + p +
                    "san.cnf"));
}

TEST(RemoteTls, GrpcsWithTheServersCaWorksAndOtherwiseIsUnavailable) {
    if (!run("openssl version")) GTEST_SKIP() << "no openssl command";
    TempDir dir, other;
    make_ca(dir.path(), true);
    make_ca(other.path(), false);
    ServerProcess server(
        {"--tls_cert", dir.path() + "/server.pem", "--tls_key", dir.path() + "/server.key"});
    const std::string secure = "grpcs://" + server.url();
    Core core = make_core();
    core.set_property("REMOTE.0",
                      {url(secure), tls_ca(dir.path() + "/ca.pem"), server_device("TEMPLATE")});
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0");
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}, 2.f));
    request.infer();
    EXPECT_FLOAT_EQ(values(request.get_output_tensor())[1], 4.f);
    const std::string name = core.get_property("REMOTE.0", device::full_name);
    EXPECT_EQ(name.find("unreachable"), std::string::npos) << name;

    // Plain text to the TLS port, and TLS with a CA that did not sign the server's certificate.
    for (const AnyMap& wrong :
         {AnyMap{url(server.url())}, AnyMap{url(secure), tls_ca(other.path() + "/ca.pem")}}) {
        try {
            core.compile_model(add_one_model(), "REMOTE.0", wrong);
            ADD_FAILURE() << "compiled through a wrong TLS setting";
        } catch (const Unavailable& e) {
            EXPECT_NE(std::string(e.what()).find(server.url()), std::string::npos) << e.what();
        }
    }
}

TEST(RemoteTls, UnreadableCaFileIsInvalidArgument) {
    Core core = make_core();
    EXPECT_THROW(core.set_property("REMOTE.0", {tls_ca("/nonexistent/ca.pem")}), InvalidArgument);
}

}  // namespace
}  // namespace vireo::remote::test
