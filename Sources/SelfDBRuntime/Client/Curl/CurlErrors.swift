#if canImport(CCurl)
import CCurl
import Foundation

/// libcurl's result codes as the `URLError`s URLSession throws for the same failures, so
/// the clients' retry rules read them the same way on every platform.
enum CurlErrors {
    static func urlError(_ code: CURLcode, detail: String, url: URL?) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        return URLError(kind(of: code), userInfo: info)
    }

    /// Whether a transfer that failed with `code` may have delivered its request: not when the
    /// connection was never made, nor when no byte of the request was written.
    static func delivery(of code: CURLcode, requestBytesWritten: Int) -> RequestDelivery {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SSL_CONNECT_ERROR,
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_FAILED_INIT:
            .notSent
        default:
            requestBytesWritten == 0 ? .notSent : .unknown
        }
    }

    static func kind(of code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_COULDNT_CONNECT: .cannotConnectToHost
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .cannotFindHost
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE: .networkConnectionLost
        case CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING: .badServerResponse
        case CURLE_ABORTED_BY_CALLBACK: .cancelled
        case CURLE_TOO_MANY_REDIRECTS: .httpTooManyRedirects
        case CURLE_URL_MALFORMAT: .badURL
        case CURLE_UNSUPPORTED_PROTOCOL: .unsupportedURL
        case CURLE_SSL_CONNECT_ERROR: .secureConnectionFailed
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE: .serverCertificateUntrusted
        default: .unknown
        }
    }
}
#endif
