// REMOTE over TLS against vireo_server processes with --tls_cert (CAs and certificates for
// 127.0.0.1 made with the openssl command): grpcs:// with REMOTE_TLS_CA, mutual TLS with
// REMOTE_TLS_CERT / REMOTE_TLS_KEY (--tls_client_ca), and the failures of each.
#include "test_utils.hpp"
#include "vireo/exception.hpp"

namespace vireo::remote::test {
namespace {

bool run(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// Writes <name>.pem and <name>.key in `dir`: a certificate for 127.0.0.1 / localhost signed by the
// CA of `dir` (make_ca), usable by a server or a client.
void sign(const std::string& dir, const std::string& name) {
    const std::string p = dir + "/";
    {
        std::ofstream san(p + "san.cnf");
        san << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
    }
    ASSERT_TRUE(run("openssl req -newkey rsa:2048 -nodes -keyout " + p + name + ".key -out " + p +
                    name + ".csr -subj /CN=localhost"));
    ASSERT_TRUE(run("openssl x509 -req -in " + p + name + ".csr -CA " + p + "ca.pem -CAkey " + p +
                    "ca.key -CAcreateserial -out " + p + name + ".pem -days 2 -extfile " + p +
                    "san.cnf"));
}

// Writes ca.pem (and ca.key) in `dir`, and with `server` also server.pem/server.key signed by it.
void make_ca(const std::string& dir, bool server) {
    const std::string p = dir + "/";
    ASSERT_TRUE(run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + p + "ca.key -out " + p +
                    "ca.pem -days 2 -subj '/CN=vireo remote test CA'"));
    if (server) sign(dir, "server");
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The message of the exception of type E that `call` throws; fails the test when none does.
template <typename E, typename F>
std::string message_of(F call) {
    try {
        call();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "no exception of the expected kind";
    return "";
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

// A server with --tls_client_ca serves only clients presenting a certificate its client CA signed.
// The calls that fail end at the refused handshake (UNAVAILABLE at once), not at the 60 s deadline
// of the control calls.
TEST(RemoteTls, MutualTlsNeedsAClientCertificateTheServersClientCaSigned) {
    if (!run("openssl version")) GTEST_SKIP() << "no openssl command";
    TempDir dir, other;
    const std::string d = dir.path() + "/", o = other.path() + "/";
    make_ca(dir.path(), true);
    sign(dir.path(), "client");
    make_ca(other.path(), false);
    sign(other.path(), "client");  // a client certificate of a CA the server does not trust
    ServerProcess server({"--tls_cert", d + "server.pem", "--tls_key", d + "server.key",
                          "--tls_client_ca", d + "ca.pem"});
    const std::string secure = "grpcs://" + server.url();
    Core core = make_core();
    core.set_property("REMOTE.0", {url(secure), tls_ca(d + "ca.pem"), server_device("TEMPLATE")});

    // The server's CA only: refused, and the message says which device, where, and what to set.
    std::string message =
        message_of<Unavailable>([&] { core.compile_model(add_one_model(), "REMOTE.0"); });
    EXPECT_TRUE(contains(message, "REMOTE.0 (" + secure + ")")) << message;
    EXPECT_TRUE(contains(message, "handshake")) << message;
    EXPECT_TRUE(contains(message, "REMOTE_TLS_CERT and REMOTE_TLS_KEY")) << message;
    EXPECT_FALSE(contains(message, "deadline")) << message;

    // A certificate signed by another CA: refused too (the instance's channel is made anew with
    // it).
    core.set_property("REMOTE.0", {tls_cert(o + "client.pem"), tls_key(o + "client.key")});
    message = message_of<Unavailable>([&] { core.compile_model(add_one_model(), "REMOTE.0"); });
    EXPECT_TRUE(contains(message, "REMOTE.0 (" + secure + ")")) << message;
    EXPECT_TRUE(contains(message, "handshake")) << message;
    EXPECT_TRUE(contains(message, "trusts the CA that signed REMOTE_TLS_CERT")) << message;

    // The client certificate the server's client CA signed: served.
    core.set_property("REMOTE.0", {tls_cert(d + "client.pem"), tls_key(d + "client.key")});
    EXPECT_EQ(core.get_property("REMOTE.0", tls_cert), d + "client.pem");
    EXPECT_EQ(core.get_property("REMOTE.0", tls_key), d + "client.key");
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0");
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}, 2.f, 0.5f));
    request.infer();
    const std::vector<float> y = values(request.get_output_tensor());
    ASSERT_EQ(y.size(), 8u);
    for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], 3.f + 0.5f * i) << "y[" << i << "]";
    const std::string name = core.get_property("REMOTE.0", device::full_name);
    EXPECT_FALSE(contains(name, "unreachable")) << name;

    // The same certificate and key given to one compile_model, on an instance without them.
    core.set_property("REMOTE.1", {url(secure), tls_ca(d + "ca.pem"), server_device("TEMPLATE")});
    auto by_call = core.compile_model(add_one_model(), "REMOTE.1",
                                      {tls_cert(d + "client.pem"), tls_key(d + "client.key")});
    auto second = by_call.create_infer_request();
    second.set_input_tensor(make_tensor({1, 8}, -1.f));
    second.infer();
    EXPECT_FLOAT_EQ(values(second.get_output_tensor())[7], 7.f);

    // Without REMOTE_TLS_CA the system's roots verify the server: here gRPC's default roots file
    // is made the test CA (read once per process, when a channel first needs the default roots).
    setenv("GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", (d + "ca.pem").c_str(), 1);
    core.set_property("REMOTE.2", {url(secure), tls_cert(d + "client.pem"),
                                   tls_key(d + "client.key"), server_device("TEMPLATE")});
    auto system_roots = core.compile_model(add_one_model(), "REMOTE.2");
    auto third = system_roots.create_infer_request();
    third.set_input_tensor(make_tensor({1, 8}, 0.f));
    third.infer();
    EXPECT_FLOAT_EQ(values(third.get_output_tensor())[3], 4.f);
    unsetenv("GRPC_DEFAULT_SSL_ROOTS_FILE_PATH");
}

TEST(RemoteTls, ClientCertificateAndKeyGoTogether) {
    TempDir dir;
    const std::string cert = dir.path() + "/client.pem", key = dir.path() + "/client.key";
    std::ofstream(cert) << "not checked before the channel is made\n";
    std::ofstream(key) << "not checked before the channel is made\n";
    Core core = make_core();
    // One without the other is refused at set_property, naming both, and changes nothing.
    for (const AnyMap& half : {AnyMap{tls_cert(cert)}, AnyMap{tls_key(key)}}) {
        const std::string message =
            message_of<InvalidArgument>([&] { core.set_property("REMOTE.0", half); });
        EXPECT_TRUE(contains(message, "REMOTE_TLS_CERT")) << message;
        EXPECT_TRUE(contains(message, "REMOTE_TLS_KEY")) << message;
        EXPECT_EQ(core.get_property("REMOTE.0", tls_cert), "");
        EXPECT_EQ(core.get_property("REMOTE.0", tls_key), "");
    }
    EXPECT_THROW(core.set_property("REMOTE", {tls_cert(cert)}), InvalidArgument);
    // Both in one call; then dropping only one is refused, dropping both is not.
    core.set_property("REMOTE.0", {tls_cert(cert), tls_key(key)});
    EXPECT_EQ(core.get_property("REMOTE.0", tls_cert), cert);
    EXPECT_THROW(core.set_property("REMOTE.0", {tls_key("")}), InvalidArgument);
    EXPECT_EQ(core.get_property("REMOTE.0", tls_key), key);
    core.set_property("REMOTE.0", {tls_cert(""), tls_key("")});
    EXPECT_EQ(core.get_property("REMOTE.0", tls_cert), "");
    // For every instance at once.
    core.set_property("REMOTE", {tls_cert(cert), tls_key(key)});
    EXPECT_EQ(core.get_property("REMOTE.0", tls_key), key);
    core.set_property("REMOTE", {tls_cert(""), tls_key("")});

    // An unreadable path names the key and the path.
    std::string message = message_of<InvalidArgument>([&] {
        core.set_property("REMOTE.0", {tls_cert("/nonexistent/client.pem"), tls_key(key)});
    });
    EXPECT_TRUE(contains(message, "REMOTE_TLS_CERT")) << message;
    EXPECT_TRUE(contains(message, "/nonexistent/client.pem")) << message;

    // compile_model's own arguments are checked the same way (before any connection).
    core.set_property("REMOTE.0", {url("grpcs://127.0.0.1:1")});
    message = message_of<InvalidArgument>(
        [&] { core.compile_model(add_one_model(), "REMOTE.0", {tls_cert(cert)}); });
    EXPECT_TRUE(contains(message, "REMOTE.0")) << message;
    EXPECT_TRUE(contains(message, "REMOTE_TLS_KEY")) << message;

    // A file gone between set_property and the channel: named with its key.
    core.set_property("REMOTE.0", {tls_cert(cert), tls_key(key)});
    std::filesystem::remove(key);
    message = message_of<InvalidArgument>([&] { core.compile_model(add_one_model(), "REMOTE.0"); });
    EXPECT_TRUE(contains(message, "cannot read REMOTE_TLS_KEY '" + key + "'")) << message;
}

}  // namespace
}  // namespace vireo::remote::test
