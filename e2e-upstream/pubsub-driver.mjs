// What the specs get for @flatfile/listener-driver-pubsub: Sluice's stream driver, with each
// event handed on 100 ms after it arrives. Flatfile's harness (@flatfile/utils-testing's
// TestListener) counts an event when it starts handling it, and its waitFor returns at once
// for a count already reached; on Flatfile's cloud an event comes over PubNub well after the
// HTTP answer of the write that raised it, and the harness counts on that. Sluice's stream
// often delivers it first, so a spec could read records before its hook had written them back
// (a record-hook spec failed about one run in six on PostgreSQL). The delay restores the order
// the harness expects; the driver itself hands events on at once.
import { SluiceStreamDriver } from "../agents/sluice-driver.mjs";

export class PubSubDriver extends SluiceStreamDriver {
  deliver(id, data) {
    setTimeout(() => super.deliver(id, data), 100);
  }
}
