import Testing
import FeedCrawlHTTP
@testable import FeedCrawlStorage

@Suite("S3 location, configuration and encoding")
struct S3LocationTests {
    @Test(arguments: [
        ("s3://my-bucket", "my-bucket", ""),
        ("s3://my-bucket/", "my-bucket", ""),
        ("s3://my-bucket/cache", "my-bucket", "cache"),
        ("s3://my-bucket/cache/images//", "my-bucket", "cache/images"),
        ("s3://a.b-c.123/x y/é", "a.b-c.123", "x y/é"),
        ("s3://abc/a+b=c", "abc", "a+b=c"),
    ])
    func goodLocationsParse(text: String, bucket: String, prefix: String) throws {
        let location = try S3Location(parsing: text)
        #expect(location.bucket == bucket)
        #expect(location.prefix == prefix)
        #expect(location.key("ab/x.jpg") == (prefix.isEmpty ? "ab/x.jpg" : prefix + "/ab/x.jpg"))
    }

    @Test(arguments: [
        ("my-bucket/cache", "does not start with s3://"),
        ("https://my-bucket/cache", "does not start with s3://"),
        ("s3://", "no bucket name"),
        ("s3:///cache", "no bucket name"),
        ("s3://b1", "must be 3 to 63 characters long (it has 2)"),
        ("s3://" + String(repeating: "a", count: 64), "must be 3 to 63 characters long (it has 64)"),
        ("s3://My-Bucket", "has uppercase letters"),
        ("s3://my_bucket", #"has "_""#),
        ("s3://-bucket", "must start and end with a lowercase letter or a digit"),
        ("s3://bucket.", "must start and end with a lowercase letter or a digit"),
        ("s3://my..bucket", "two periods in a row"),
        ("s3://192.168.5.4", "shaped like an IP address"),
        ("s3://xn--bucket", "reserved prefix xn--"),
        ("s3://bucket-s3alias", "reserved suffix -s3alias"),
        ("s3://bucket//cache", "starts with '/'"),
        ("s3://bucket/a//b", "has an empty segment"),
        ("s3://bucket/a/../b", "has a '..' segment"),
        ("s3://bucket/a\tb", "has a control character"),
    ])
    func badLocationsSayWhy(text: String, problem: String) {
        do {
            let location = try S3Location(parsing: text)
            Issue.record("\(text) parsed as \(location)")
        } catch {
            #expect(error.problem.contains(problem), "\(error)")
            #expect(error.description.hasPrefix("invalid S3 location "))
        }
    }

    @Test func locationsFromPartsAndTheirDescriptions() throws {
        #expect(try S3Location(bucket: "abc", prefix: "p/q/").description == "s3://abc/p/q")
        #expect(try S3Location(bucket: "abc").description == "s3://abc")
        #expect(throws: S3LocationError.self) { try S3Location(bucket: "ab") }
        #expect(S3Location.bucketProblem("fine-name.1") == nil)
    }

    @Test func keysArePercentEncodedAsSigV4Canonicalises() {
        #expect(S3Encoding.encodePath("cache/ab/x.jpg") == "cache/ab/x.jpg")
        #expect(S3Encoding.encodePath("a b+c/é~_.-") == "a%20b%2Bc/%C3%A9~_.-")
        #expect(S3Encoding.encodePath("x&y=z?#%") == "x%26y%3Dz%3F%23%25")
        #expect(S3Encoding.encodeQueryComponent("a/b c") == "a%2Fb%20c")
        #expect(S3Encoding.canonicalQuery([("prefix", "a/b"), ("list-type", "2"), ("max-keys", "2"),
                                           ("continuation-token", "t+1=")])
            == "continuation-token=t%2B1%3D&list-type=2&max-keys=2&prefix=a%2Fb")
        #expect(S3Encoding.canonicalQuery([("prefix", "")]) == "prefix=")
    }

    @Test func configurationComesFromTheEnvironmentAsAWSToolsTakeIt() throws {
        let plain = try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "sk-secret"])
        #expect(plain.region == "us-east-1")
        #expect(plain.endpoint == nil)
        #expect(plain.credentials.sessionToken == nil)
        #expect(plain.objectURL(bucket: "bkt", key: "a b/c.jpg") == "https://bkt.s3.us-east-1.amazonaws.com/a%20b/c.jpg")
        #expect(plain.bucketURL(bucket: "my.bkt") == "https://s3.us-east-1.amazonaws.com/my.bkt/")

        let environment = [
            "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "sk-secret", "AWS_SESSION_TOKEN": "tok-secret",
            "AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "us-west-2", "AWS_ENDPOINT_URL": "http://127.0.0.1:8333/",
        ]
        let local = try S3Configuration.fromEnvironment(environment)
        #expect(local.region == "eu-central-1")
        #expect(local.credentials.sessionToken == "tok-secret")
        #expect(local.objectURL(bucket: "bkt", key: "k/1") == "http://127.0.0.1:8333/bkt/k/1")
        #expect(!local.description.contains("sk-secret") && !local.description.contains("tok-secret"))
        var dumped = ""
        dump(local, to: &dumped)
        #expect(!dumped.contains("sk-secret") && !dumped.contains("tok-secret"))

        let overridden = try S3Configuration.fromEnvironment(environment, endpoint: "https://minio.example:9000")
        #expect(overridden.bucketURL(bucket: "bkt") == "https://minio.example:9000/bkt/")
        var s3Specific = environment
        s3Specific["AWS_ENDPOINT_URL_S3"] = "http://s3.local"
        s3Specific["AWS_REGION"] = nil
        let specific = try S3Configuration.fromEnvironment(s3Specific)
        #expect(specific.endpoint == "http://s3.local")
        #expect(specific.region == "us-west-2")
    }

    @Test func missingCredentialsAndBadEndpointsAreClearErrors() {
        #expect(throws: S3ConfigurationError("no S3 credentials: set AWS_SECRET_ACCESS_KEY in the environment")) {
            try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK"])
        }
        #expect(throws: S3ConfigurationError(
            "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")) {
            try S3Configuration.fromEnvironment([:])
        }
        let credentials = ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "sk"]
        for bad in ["127.0.0.1:8333", "ftp://host", "http://", "http://user:pw@host", "http://host/?x=1"] {
            #expect(throws: S3ConfigurationError.self, "\(bad)") {
                try S3Configuration.fromEnvironment(credentials, endpoint: bad)
            }
        }
        #expect(throws: S3ConfigurationError.self) {
            try S3Configuration.fromEnvironment(credentials.merging(["AWS_REGION": "US East"]) { $1 })
        }
    }
}

@Suite("S3 XML answers")
struct S3XMLTests {
    @Test func aListObjectsV2PageIsRead() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bkt</Name><Prefix>c/</Prefix>\
            <MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>
              <Contents><Key>c/a&amp;b &lt;1&gt;.jpg</Key><ETag>&#34;d4847b2b&#34;</ETag><Size>3000</Size>\
            <StorageClass>STANDARD</StorageClass><LastModified>2026-12-02T14:45:51Z</LastModified>\
            <Owner><ID>x</ID><DisplayName>y</DisplayName></Owner></Contents>
              <!-- a comment <Key>not this</Key> -->
              <Contents><Key><![CDATA[c/é&<x>]]></Key><ETag>&quot;e2&quot;</ETag><Size>0</Size>\
            <LastModified>2026-12-02T14:45:52.000Z</LastModified></Contents>
              <KeyCount>2</KeyCount><NextContinuationToken>tok/en+1=</NextContinuationToken>\
            <CommonPrefixes><Prefix>c/d/</Prefix></CommonPrefixes>
            </ListBucketResult>
            """
        let page = try S3ListPage.parse(Array(xml.utf8))
        #expect(page.objects == [
            S3ListedObject(key: "c/a&b <1>.jpg", size: 3000, etag: "\"d4847b2b\"", lastModified: "2026-12-02T14:45:51Z"),
            S3ListedObject(key: "c/é&<x>", size: 0, etag: "\"e2\"", lastModified: "2026-12-02T14:45:52.000Z"),
        ])
        #expect(page.nextContinuationToken == "tok/en+1=")
    }

    @Test func theLastAndEmptyPagesHaveNoToken() throws {
        let last = try S3ListPage.parse(Array("""
            <ListBucketResult><IsTruncated>false</IsTruncated><NextContinuationToken>stale</NextContinuationToken>\
            <Contents><Key>k</Key><Size>1</Size></Contents></ListBucketResult>
            """.utf8))
        #expect(last.objects.map(\.key) == ["k"])
        #expect(last.nextContinuationToken == nil)
        let empty = try S3ListPage.parse(Array("<ListBucketResult><KeyCount>0</KeyCount><Prefix/></ListBucketResult>".utf8))
        #expect(empty.objects.isEmpty)
    }

    @Test(arguments: [
        "<Error><Code>NoSuchBucket</Code></Error>",
        "<ListBucketResult><Contents><Key>k</Key></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
        "<ListBucketResult><Contents><Key>k</Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a &bogus; b</Key><Size>1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Key>a & b</Key><Size>1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><Contents>",
        "",
    ])
    func malformedListingsAreErrors(xml: String) {
        #expect(throws: S3XMLError.self) { try S3ListPage.parse(Array(xml.utf8)) }
    }

    @Test func anErrorDocumentIsRead() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>\
            <Resource>/bkt/a&amp;b</Resource><RequestId>18ED7714EF4CF2B8</RequestId><Key>a&amp;b</Key></Error>
            """
        #expect(S3ErrorBody.parse(Array(xml.utf8)) == S3ErrorBody(
            code: "NoSuchKey", message: "The specified key does not exist.", requestID: "18ED7714EF4CF2B8", key: "a&b"))
        #expect(S3ErrorBody.parse(Array("<html>Bad gateway</html>".utf8)) == nil)
        #expect(S3ErrorBody.parse(Array("<Error><Code>x</Error>".utf8)) == nil)
        #expect(S3ErrorBody.parse([]) == nil)
        #expect((try? S3XML.decode(Array("&#x1F600;&#65;".utf8))) == "😀A")
    }

    @Test func errorsDescribeWhatFailedAndScrubSecrets() {
        let body = Array("""
            <Error><Code>SignatureDoesNotMatch</Code><Message>signed with s3cr3t-value-123</Message>\
            <RequestId>R1</RequestId></Error>
            """.utf8)
        let error = S3Error.from(HTTPResponse(status: 403, body: body), operation: "PUT", key: "cache/ab/x.jpg",
                                 secrets: ["s3cr3t-value-123"])
        #expect(error.code == .signatureDoesNotMatch)
        #expect(error.status == 403)
        #expect(!error.isRetryable)
        #expect(error.description
            == "S3 PUT cache/ab/x.jpg: SignatureDoesNotMatch (403): signed with <redacted> [request R1]")

        let noBody = S3Error.from(HTTPResponse(status: 503), operation: "HEAD", key: "k", secrets: [])
        #expect(noBody.code == .slowDown)
        #expect(noBody.isRetryable)
        #expect(noBody.description == "S3 HEAD k: SlowDown (503): no error details in the answer")

        let html = S3Error.from(HTTPResponse(status: 502, body: Array("<html>bad gateway</html>".utf8)),
                                operation: "GET", key: "k", secrets: [])
        #expect(html.code == nil)
        #expect(html.isRetryable)
        #expect(html.description == "S3 GET k: HTTP (502): answer: <html>bad gateway</html>")

        var transport = S3Error(operation: "LIST", key: "", message: "", transport: .connectionFailed("refused"))
        transport.attempts = 3
        #expect(transport.isRetryable)
        #expect(transport.description == "S3 LIST (bucket root): connection failed: refused (after 3 attempts)")
        #expect(!S3Error(operation: "GET", key: "k", status: 404, code: .noSuchKey, message: "").isRetryable)
        #expect(S3Error(operation: "GET", key: "k", status: 500, code: .internalError, message: "").isRetryable)
    }
}
