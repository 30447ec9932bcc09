// @flatfile/utils-testing's createRecords posts with axios straight to Flatfile's cloud
// (https://platform.flatfile.com/api/v1/…); the same request goes to the Sluice under test.
const axios = require("axios");

const cloud = "https://platform.flatfile.com/api";
axios.interceptors.request.use((config) => {
  if (config.url && config.url.startsWith(cloud)) {
    config.url = process.env.FLATFILE_API_URL.replace(/\/+$/, "") + config.url.slice(cloud.length);
  }
  return config;
});
